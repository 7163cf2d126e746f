import FootstepWire
import Foundation
import Hummingbird
import NIOCore

/// The request context of the control socket: keeps the connection's channel
/// (to read `SO_PEERCRED`) and, once checked, the peer's credentials.
public struct ControlRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The accepted socket.
    public let channel: any Channel
    /// Set by the route's authorisation step before the handler runs.
    public var peer: PeerCredentials?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Bodies are small JSON documents; ``ControlServerConfiguration/maximumBodyBytes``
    /// is the real limit, this one backs it up for any decoder that uses the context's.
    public var maxUploadSize: Int { 64 * 1024 }

    public var requestDecoder: JSONDecoder { APIJSON.decoder }
    public var responseEncoder: JSONEncoder { APIJSON.encoder }
}
