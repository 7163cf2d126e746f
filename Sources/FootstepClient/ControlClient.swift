import FootstepWire
import Foundation
import NIOCore
import NIOPosix

/// A client of footstepd's control socket (HTTP/1.1 + JSON over AF_UNIX).
///
/// Each method is one request on its own connection; errors are
/// ``ControlClientError`` values whose descriptions a person can act on.
///
/// ```swift
/// let client = ControlClient(socketPath: "/run/footstepd/control.sock")
/// let status = try await client.status()
/// for try await reading in client.liveLevels() { print(reading.lafDB) }
/// ```
public struct ControlClient: Sendable {
    /// The default socket path (`socket.path` in footstepd.toml).
    public static let defaultSocketPath = "/run/footstepd/control.sock"

    /// The socket this client talks to.
    public let socketPath: String
    /// Seconds allowed for connecting and for each non-streaming request.
    public let timeout: Double
    let transport: UnixHTTPTransport

    /// Creates a client; nothing is connected until the first request.
    ///
    /// - Parameters:
    ///   - socketPath: The daemon's control socket.
    ///   - timeout: Seconds allowed for connecting and for each non-streaming request.
    ///   - readGroup: The group named in the "permission denied" message.
    public init(
        socketPath: String = ControlClient.defaultSocketPath, timeout: Double = 10,
        readGroup: String = ControlClientError.defaultReadGroup
    ) {
        self.socketPath = socketPath
        self.timeout = timeout
        self.transport = UnixHTTPTransport(
            socketPath: socketPath, timeout: timeout, readGroup: readGroup,
            group: MultiThreadedEventLoopGroup.singleton)
    }

    // MARK: - Generic requests

    /// Sends `request` and returns the response whatever its status.
    public func response(_ request: ControlRequest) async throws(ControlClientError) -> ControlResponse {
        try await transport.perform(request)
    }

    /// Sends `request` and returns the body of a 2xx response; any other status
    /// is thrown as ``ControlClientError/server(status:code:message:)``.
    public func data(_ request: ControlRequest) async throws(ControlClientError) -> Data {
        try await successful(request).body
    }

    /// Sends `request`; a non-2xx status is thrown.
    public func successful(_ request: ControlRequest) async throws(ControlClientError) -> ControlResponse {
        let response = try await transport.perform(request)
        guard (200..<300).contains(response.status) else {
            throw UnixHTTPTransport.serverError(status: response.status, body: response.body)
        }
        return response
    }

    /// Sends `request` and decodes the body of a 2xx response as `T`.
    public func value<T: Decodable>(_ type: T.Type, _ request: ControlRequest) async throws(ControlClientError) -> T {
        try Self.decode(type, from: try await data(request))
    }

    /// Decodes `data` with ``APIJSON/decoder``, naming what did not match.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(ControlClientError) -> T {
        do {
            return try APIJSON.decoder.decode(type, from: data)
        } catch {
            let start = String(decoding: data.prefix(120), as: UTF8.self)
            throw .malformedResponse("expected \(T.self): \(Self.describe(error)) in \(start)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "missing key '\(key.stringValue)' at \(path(context))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            "\(context.debugDescription) at \(path(context))"
        default:
            "\(error)"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "the top level" : path
    }
}
