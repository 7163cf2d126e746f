#if canImport(Glibc)
import FootstepWire
import Foundation
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
#endif

/// HTTP/1.1 over an AF_UNIX stream socket, one connection per request
/// (`Connection: close`), built on NIO's client bootstrap and HTTP codec.
///
/// Every failure leaves as a ``ControlClientError``.
struct UnixHTTPTransport: Sendable {
    typealias HTTPChannel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    let socketPath: String
    /// Limit for connecting and for a whole non-streaming exchange.
    let timeout: Double
    /// Named in the permission message.
    let readGroup: String
    let group: any EventLoopGroup
    /// Bodies larger than this are refused (a clip is a few hundred kB).
    static let maximumBodyBytes = 256 << 20

    /// Sends `request` and collects the whole response, within `timeout`.
    func perform(_ request: ControlRequest) async throws(ControlClientError) -> ControlResponse {
        let socketPath = socketPath
        let timeout = timeout
        do {
            return try await withThrowingTaskGroup(of: ControlResponse?.self) { tasks in
                tasks.addTask { try await exchange(request) }
                tasks.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    return nil
                }
                defer { tasks.cancelAll() }
                guard let response = try await tasks.next() ?? nil else {
                    throw ControlClientError.timedOut(socketPath: socketPath, seconds: timeout)
                }
                return response
            }
        } catch {
            throw map(error)
        }
    }

    /// Sends `request` and hands the response body to `body` chunk by chunk as
    /// it arrives (chunked live streams). A non-2xx status is thrown as an error
    /// before `body` is called. Only connecting is bounded by `timeout`.
    func stream(_ request: ControlRequest, body: (ByteBuffer) async throws -> Void) async throws(ControlClientError) {
        do {
            let channel = try await connect()
            try await withTaskCancellationHandler {
                try await channel.executeThenClose { inbound, outbound in
                    let sendError = await sendTolerantly(request, to: outbound)
                    var iterator = inbound.makeAsyncIterator()
                    guard case .head(let head) = try await iterator.next() else {
                        if let sendError { throw sendError }
                        throw ControlClientError.malformedResponse("the connection closed before a response")
                    }
                    guard (200..<300).contains(Int(head.status.code)) else {
                        var rest = ByteBuffer()
                        while let part = try await iterator.next() {
                            if case .body(var chunk) = part { rest.writeBuffer(&chunk) }
                            if case .end = part { break }
                        }
                        throw Self.serverError(status: Int(head.status.code), body: Data(rest.readableBytesView))
                    }
                    while let part = try await iterator.next() {
                        switch part {
                        case .head: throw ControlClientError.malformedResponse("a second response head")
                        case .body(let chunk): try await body(chunk)
                        case .end: return
                        }
                    }
                }
            } onCancel: {
                channel.channel.close(promise: nil)
            }
        } catch {
            throw map(error)
        }
    }

    // MARK: - Connection

    private func exchange(_ request: ControlRequest) async throws -> ControlResponse {
        let channel = try await connect()
        return try await withTaskCancellationHandler {
            try await channel.executeThenClose { inbound, outbound in
                let sendError = await sendTolerantly(request, to: outbound)
                var head: HTTPResponseHead?
                var body = ByteBuffer()
                for try await part in inbound {
                    switch part {
                    case .head(let received):
                        head = received
                    case .body(var chunk):
                        guard body.readableBytes + chunk.readableBytes <= Self.maximumBodyBytes else {
                            throw ControlClientError.malformedResponse("body larger than \(Self.maximumBodyBytes) bytes")
                        }
                        body.writeBuffer(&chunk)
                    case .end:
                        guard let head else { throw ControlClientError.malformedResponse("a body without a response head") }
                        var headers: [String: String] = [:]
                        for (name, value) in head.headers { headers[name.lowercased()] = value }
                        return ControlResponse(
                            status: Int(head.status.code), headers: headers, body: Data(body.readableBytesView))
                    }
                }
                if head == nil, let sendError { throw sendError }
                throw ControlClientError.malformedResponse("the connection closed before the response ended")
            }
        } onCancel: {
            channel.channel.close(promise: nil)
        }
    }

    private func connect() async throws -> HTTPChannel {
        try preflight()
        return try await ClientBootstrap(group: group)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .connect(unixDomainSocketPath: socketPath) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try HTTPChannel(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Sends `request`; a failed write is returned, not thrown, because a server
    /// may answer (an error, say) and close before it has read the whole request:
    /// its response is still waiting in the inbound stream.
    private func sendTolerantly(
        _ request: ControlRequest, to outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) async -> (any Error)? {
        do {
            try await send(request, to: outbound)
            return nil
        } catch {
            return error
        }
    }

    private func send(_ request: ControlRequest, to outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>)
        async throws
    {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "localhost")
        headers.add(name: "User-Agent", value: "footstepctl")
        headers.add(name: "Connection", value: "close")
        if let body = request.body {
            headers.add(name: "Content-Type", value: request.contentType)
            headers.add(name: "Content-Length", value: String(body.count))
        }
        let head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: request.method.rawValue), uri: request.target,
            headers: headers)
        try await outbound.write(.head(head))
        if let body = request.body, !body.isEmpty {
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
        }
        try await outbound.write(.end(nil))
    }

    /// Names the common cases before NIO turns them into a bare errno.
    private func preflight() throws(ControlClientError) {
        var info = stat()
        if stat(socketPath, &info) != 0 {
            switch errno {
            case ENOENT: throw .notRunning(socketPath: socketPath)
            case EACCES: throw .permissionDenied(socketPath: socketPath, group: owningGroup)
            default: throw .connectionFailed(socketPath: socketPath, reason: String(cString: strerror(errno)))
            }
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(socketPath: socketPath) }
    }

    // MARK: - Errors

    /// The group that may open the socket: the socket file's group, else its
    /// directory's (when the directory is what cannot be entered), else `readGroup`.
    private var owningGroup: String {
        for path in [socketPath, (socketPath as NSString).deletingLastPathComponent] {
            var info = stat()
            guard stat(path, &info) == 0, info.st_gid != 0 else { continue }
            var entry = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>?
            var buffer = [CChar](repeating: 0, count: 4096)
            if getgrgid_r(info.st_gid, &entry, &buffer, buffer.count, &result) == 0, let result {
                return String(cString: result.pointee.gr_name)
            }
        }
        return readGroup
    }

    private func map(_ error: any Error) -> ControlClientError {
        switch error {
        case let error as ControlClientError:
            return error
        case let error as IOError:
            switch error.errnoCode {
            case ENOENT: return .notRunning(socketPath: socketPath)
            case ECONNREFUSED: return .notListening(socketPath: socketPath)
            case EACCES, EPERM: return .permissionDenied(socketPath: socketPath, group: owningGroup)
            default: return .connectionFailed(socketPath: socketPath, reason: String(cString: strerror(error.errnoCode)))
            }
        case ChannelError.connectTimeout:
            return .timedOut(socketPath: socketPath, seconds: timeout)
        case let error as SocketAddressError:
            return .connectionFailed(socketPath: socketPath, reason: "\(error) (socket paths are limited to 107 bytes)")
        case let error as HTTPParserError:
            return .malformedResponse("not HTTP (\(error))")
        default:
            return .connectionFailed(socketPath: socketPath, reason: "\(error)")
        }
    }

    /// The error a non-2xx response stands for: the server's `{"error":{…}}`, or the status line.
    static func serverError(status: Int, body: Data) -> ControlClientError {
        if let decoded = try? APIJSON.decoder.decode(ErrorResponse.self, from: body) {
            return .server(status: status, code: decoded.error.code, message: decoded.error.message)
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return .server(status: status, code: "http_\(status)", message: "footstepd answered HTTP \(status)" + (text.isEmpty ? "" : ": \(text)"))
    }
}
