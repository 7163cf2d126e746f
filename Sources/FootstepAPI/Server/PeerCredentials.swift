import Foundation
import NIOCore

/// The credentials of the process at the other end of a Unix socket, as the
/// kernel recorded them at `connect()` (`SO_PEERCRED`): they cannot be forged
/// by the client.
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t

    public init(pid: pid_t, uid: uid_t, gid: gid_t) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "uid \(uid) gid \(gid) pid \(pid)" }

    /// `struct ucred` from `<sys/socket.h>`; Glibc does not export it to Swift
    /// (it needs `_GNU_SOURCE`), so it is declared here with the same layout.
    struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Reads `SO_PEERCRED` of the socket behind `channel`.
    ///
    /// - Throws: ``APIError`` (403) when the channel is not a Unix socket (the TCP
    ///   metrics listener never calls this) or the kernel refuses.
    static func read(from channel: any Channel) async throws -> PeerCredentials {
        try await future(of: channel).get()
    }

    /// ``read(from:)`` for code on the channel's event loop.
    static func future(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(
                APIError(.forbidden, code: "no_peer_credentials", "the connection's peer credentials are unknown"))
        }
        let credentials: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return credentials.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
            .flatMapErrorThrowing { error in
                throw APIError(
                    .forbidden, code: "no_peer_credentials", "the connection's peer credentials cannot be read: \(error)")
            }
    }
}
