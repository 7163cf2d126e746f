import NIOCore
import NIOHTTPTypes

/// How long each phase of a request may take before its connection is closed.
public struct ConnectionTimeouts: Sendable, Equatable {
    /// From accept to the first byte of a request.
    public var firstByte: Double = 2
    /// From the first byte of a request to the end of its head.
    public var head: Double = 5
    /// From the end of a request's head to the end of its body.
    public var body: Double = 10

    public init(firstByte: Double = 2, head: Double = 5, body: Double = 10) {
        self.firstByte = firstByte
        self.head = head
        self.body = body
    }
}

/// Where a connection is in its request cycle, and so which deadline applies.
///
/// A pure state machine: the handlers feed it what they see (bytes, a request
/// head, a request's end) and it answers which deadline to arm, if any.
/// Between requests (a kept-alive connection, or one whose response is still
/// being written or streamed) no deadline of its own applies; the HTTP
/// channel's idle timeout covers that.
struct ConnectionTimingState: Equatable {
    enum Phase: Equatable {
        /// Accepted, nothing received yet.
        case awaitingFirstByte
        /// Bytes of a request arrived, its head is not complete.
        case readingHead
        /// The head is complete, the body is not.
        case readingBody
        /// The request is complete; the next one has not begun.
        case betweenRequests
    }

    /// The deadline to arm after a transition.
    enum Deadline: Equatable {
        case firstByte, head, body
        /// Cancel the armed deadline.
        case none
        /// Keep the armed deadline as it is.
        case unchanged
    }

    private(set) var phase: Phase = .awaitingFirstByte

    /// The connection was accepted.
    func accepted() -> Deadline { .firstByte }

    /// Raw bytes arrived.
    mutating func bytesArrived() -> Deadline {
        switch phase {
        case .awaitingFirstByte, .betweenRequests:
            phase = .readingHead
            return .head
        case .readingHead, .readingBody:
            return .unchanged
        }
    }

    /// The HTTP decoder produced a request head.
    mutating func headArrived() -> Deadline {
        phase = .readingBody
        return .body
    }

    /// The HTTP decoder produced a request's end.
    mutating func requestEnded() -> Deadline {
        phase = .betweenRequests
        return .none
    }
}

/// Runs ``ConnectionTimingState`` for one connection and closes it when the
/// armed deadline passes. Shared by the two handlers that watch the
/// connection: ``RawBytesTimingHandler`` before the HTTP decoder and
/// ``RequestPartsTimingHandler`` after it.
///
/// - Note: Confined to the channel's event loop.
final class ConnectionClock {
    private let timeouts: ConnectionTimeouts
    private var state = ConnectionTimingState()
    private var armed: Scheduled<Void>?
    private var channel: (any Channel)?

    init(timeouts: ConnectionTimeouts) {
        self.timeouts = timeouts
    }

    func accepted(_ channel: any Channel) {
        self.channel = channel
        apply(state.accepted())
    }

    func bytesArrived() { apply(state.bytesArrived()) }
    func headArrived() { apply(state.headArrived()) }
    func requestEnded() { apply(state.requestEnded()) }

    func stop() {
        armed?.cancel()
        armed = nil
        channel = nil
    }

    private func apply(_ deadline: ConnectionTimingState.Deadline) {
        let seconds: Double
        switch deadline {
        case .unchanged:
            return
        case .none:
            armed?.cancel()
            armed = nil
            return
        case .firstByte: seconds = timeouts.firstByte
        case .head: seconds = timeouts.head
        case .body: seconds = timeouts.body
        }
        armed?.cancel()
        guard let channel else { return }
        let loopBound = NIOLoopBound(channel, eventLoop: channel.eventLoop)
        armed = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
            loopBound.value.close(promise: nil)
        }
    }
}

/// Tells the connection's clock when it was accepted and when bytes arrive;
/// first in the pipeline, before the HTTP decoder.
final class RawBytesTimingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let clock: ConnectionClock

    init(clock: ConnectionClock) {
        self.clock = clock
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { clock.accepted(context.channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        clock.accepted(context.channel)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        clock.bytesArrived()
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        clock.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        clock.stop()
    }
}

/// Tells the connection's clock when a request's head and end have been
/// decoded; after the HTTP decoder.
final class RequestPartsTimingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let clock: ConnectionClock

    init(clock: ConnectionClock) {
        self.clock = clock
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: clock.headArrived()
        case .body: break
        case .end: clock.requestEnded()
        }
        context.fireChannelRead(data)
    }
}
