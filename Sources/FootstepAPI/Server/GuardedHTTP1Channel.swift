import FootstepWire
import Foundation
import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// HTTP/1.1 on the control socket behind a gate: at accept it reads the
/// peer's credentials and asks ``ConnectionAdmission``; a refused peer gets
/// its 403 or 503 as soon as its request head has arrived (or after 250 ms),
/// without its request being parsed, and is closed.
/// An admitted connection is timed phase by phase (``ConnectionTimeouts``),
/// answers an oversized head with 431, and gives its place back when it closes.
struct GuardedHTTP1Channel: ServerChildChannel {
    /// A connection after the gate.
    enum Value: ServerChildChannelValue {
        case admitted(HTTP1Channel.Value)
        /// Answered and closing; nothing to serve.
        case refused(any Channel)

        var channel: any Channel {
            switch self {
            case let .admitted(value): value.channel
            case let .refused(channel): channel
            }
        }
    }

    let http: HTTP1Channel
    let admission: ConnectionAdmission
    let timeouts: ConnectionTimeouts
    let logger: Logger

    init(
        responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP1Channel.Configuration,
        admission: ConnectionAdmission, timeouts: ConnectionTimeouts, logger: Logger
    ) {
        self.http = HTTP1Channel(responder: responder, configuration: configuration)
        self.admission = admission
        self.timeouts = timeouts
        self.logger = logger
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admission = admission
        let timeouts = timeouts
        let http = http
        let serverLogger = self.logger
        return PeerCredentials.future(of: channel).flatMap { peer -> EventLoopFuture<Value> in
            switch admission.admit(peer) {
            case let .admitted(ticket):
                channel.closeFuture.whenComplete { _ in admission.release(ticket) }
                // One clock per connection, fed from both sides of the HTTP decoder.
                let clock = NIOLoopBound(ConnectionClock(timeouts: timeouts), eventLoop: channel.eventLoop)
                var configuration = http.configuration
                let limits = configuration.httpDecoder
                configuration.additionalChannelHandlers = {
                    [RequestPartsTimingHandler(clock: clock.value), HeaderOverflowHandler(limits: limits)]
                }
                do {
                    try channel.pipeline.syncOperations.addHandler(RawBytesTimingHandler(clock: clock.value))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return HTTP1Channel(responder: http.responder, configuration: configuration)
                    .setup(channel: channel, logger: logger).map { .admitted($0) }
            case let .refused(status, code, message):
                serverLogger.warning(
                    "refused a connection from uid \(peer.uid) pid \(peer.pid): \(message)",
                    metadata: ["peer.uid": "\(peer.uid)", "peer.pid": "\(peer.pid)", "http.status": "\(status.code)"])
                let body = (try? APIJSON.encoder.encode(ErrorResponse(code: code, message: message))) ?? Data()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RefusalHandler(status: status, body: body))
                    return .refused(channel)
                }
            }
        }
    }

    func handle(value: Value, logger: Logger) async {
        switch value {
        case let .admitted(channel):
            await http.handle(value: channel, logger: logger)
        case let .refused(channel):
            try? await channel.closeFuture.get()
        }
    }
}

/// The only handler of a refused connection: writes the refusal as a complete
/// HTTP response once the peer's request head has arrived (an HTTP client
/// reads a response that comes before its request as unsolicited), or after
/// ``linger`` at most, and closes the connection when it is written. Nothing
/// the peer sends is parsed beyond finding the head's end.
final class RefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// The longest a refused connection waits for its peer's request head.
    static let linger = TimeAmount.milliseconds(250)

    private let response: [UInt8]
    /// The last bytes received, to find a head's end split across reads.
    private var tail: [UInt8] = []
    private var timer: Scheduled<Void>?
    private var answered = false

    init(status: HTTPResponse.Status, body: Data) {
        let head = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        response = Array(head.utf8) + Array(body)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: Self.linger) {
            loopBound.value.handler.answer(context: loopBound.value.context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        var buffer = unwrapInboundIn(data)
        tail += buffer.readBytes(length: buffer.readableBytes) ?? []
        let end: [UInt8] = [13, 10, 13, 10]
        if tail.count >= 4, (0...(tail.count - 4)).contains(where: { tail[$0..<($0 + 4)].elementsEqual(end) }) {
            answer(context: context)
            return
        }
        tail = Array(tail.suffix(3))
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    /// Writes the refusal once, then closes.
    private func answer(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        timer?.cancel()
        timer = nil
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: response))).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}

/// Answers a request head larger than the decoder's limits with 431 (instead
/// of a bare 400) and closes the connection.
final class HeaderOverflowHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limits: String

    init(limits: HTTP1Channel.Configuration.DecoderConfiguration) {
        self.limits = "\(limits.maxHeaderListSize / 1024) KB in all, \(limits.maxHeaderFieldSize / 1024) KB a field, \(limits.maxHeaderFieldCount) fields"
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, parserError == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        let body = (try? APIJSON.encoder.encode(ErrorResponse(
            code: "headers_too_large",
            message: "the request's headers are larger than footstepd accepts (\(limits))"))) ?? Data()
        let head = HTTPResponse(
            status: .init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
            headerFields: [.contentType: "application/json", .contentLength: "\(body.count)", .connection: "close"])
        context.write(NIOAny(HTTPResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPResponsePart.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil))).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}
