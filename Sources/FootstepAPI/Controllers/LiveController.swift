import FootstepStore
import FootstepStoreWire
import FootstepWire
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// `GET /v1/levels/live` and `GET /v1/events/live`: newline-delimited JSON over
/// a chunked response, one object per line, an empty line every
/// `heartbeat` seconds when nothing else was sent. An event comes once with
/// its first label and again, with the same id, each time a revision changes
/// its label.
///
/// A subscriber never slows the daemon: the broadcast drops a subscriber that
/// falls behind (the response then ends), and a write that stays blocked for
/// `writeTimeout` (a client that stopped reading) closes the connection.
struct LiveController {
    let backend: any ControlBackend
    let writeTimeout: Double
    var heartbeat: Double = 10

    var routes: [Route] {
        [
            Route(.get, APIPaths.levelsLive, .read) { request, context in
                _ = try QueryParameters(request, known: [])
                return try stream(backend.liveLevels, name: "levels", channel: context.channel) {
                    try APIJSON.encoder.encode($0)
                }
            },
            Route(.get, APIPaths.eventsLive, .read) { request, context in
                _ = try QueryParameters(request, known: [])
                return try stream(backend.liveEvents, name: "events", channel: context.channel) {
                    try APIJSON.encoder.encode(EventResponse($0))
                }
            },
        ]
    }

    /// - Parameter encode: One value as JSON (without the newline).
    private func stream<Element: Sendable>(
        _ broadcast: LiveBroadcast<Element>, name: String, channel: any Channel,
        _ encode: @escaping @Sendable (Element) throws -> Data
    ) throws -> Response {
        guard let subscription = broadcast.subscribe() else {
            throw APIError.unavailable(
                "too_many_subscribers",
                "\(broadcast.maximumSubscribers) live \(name) subscribers are already connected; try again later")
        }
        let feed = LiveFeed(
            subscription: subscription, bufferSize: broadcast.bufferSize, heartbeat: heartbeat, channel: channel)
        let writeTimeout = writeTimeout
        let body = ResponseBody { writer in
            let watch = WriteWatch()
            let watchdog = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    if watch.blockedSeconds > writeTimeout {
                        channel.close(promise: nil)
                        return
                    }
                }
            }
            defer {
                watchdog.cancel()
                feed.cancel()
            }
            for await item in feed.items {
                var bytes: [UInt8]
                switch item {
                case let .value(value):
                    bytes = Array(try encode(value))
                    bytes.append(0x0A)
                case .heartbeat:
                    bytes = [0x0A]
                }
                watch.begin()
                try await writer.write(ByteBuffer(bytes: bytes))
                watch.end()
            }
            watch.begin()
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"],
            body: body)
    }
}

/// One live subscription turned into the items a response writes: the
/// broadcast's values and heartbeats. Ends when the broadcast drops the
/// subscriber, the daemon stops, or the connection closes.
final class LiveFeed<Element: Sendable>: Sendable {
    enum Item: Sendable {
        case value(Element)
        case heartbeat
    }

    let items: AsyncStream<Item>
    private let tasks: Mutex<[Task<Void, Never>]>

    /// - Parameter bufferSize: Items the writer may fall behind by (bursts of the
    ///   daemon's publishing) before the subscriber counts as stuck and is dropped.
    init(subscription: AsyncStream<Element>, bufferSize: Int, heartbeat: Double, channel: any Channel) {
        let (items, continuation) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingOldest(bufferSize))
        self.items = items
        let sent = SentCounter()
        let forward = Task {
            for await value in subscription {
                // The writer is the slow part; a full buffer means it is stuck: end the stream.
                guard case .enqueued = continuation.yield(.value(value)) else { break }
                sent.value.add(1, ordering: .relaxed)
            }
            continuation.finish()
        }
        let beat = Task {
            var lastSent = -1
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(heartbeat))
                let now = sent.value.load(ordering: .relaxed)
                if now == lastSent { continuation.yield(.heartbeat) }
                lastSent = now
            }
        }
        tasks = Mutex([forward, beat])
        channel.closeFuture.whenComplete { _ in
            forward.cancel()
            beat.cancel()
            continuation.finish()
        }
    }

    /// Stops forwarding and releases the subscription.
    func cancel() {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}

/// Values forwarded so far (to send heartbeats only when idle).
final class SentCounter: Sendable {
    let value = Atomic<Int>(0)
}

/// When the current write to a live subscriber started (0 when none is pending).
final class WriteWatch: Sendable {
    private let startedAt = Atomic<Int64>(0)

    private static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    func begin() { startedAt.store(Self.now, ordering: .relaxed) }
    func end() { startedAt.store(0, ordering: .relaxed) }

    /// Seconds the pending write has been blocked, 0 when none is pending.
    var blockedSeconds: Double {
        let started = startedAt.load(ordering: .relaxed)
        return started == 0 ? 0 : Double(Self.now - started) / 1e9
    }
}
