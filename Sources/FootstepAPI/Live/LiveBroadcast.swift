import Synchronization

/// Fans values out to live subscribers (`/v1/levels/live`, `/v1/events/live`)
/// without ever blocking the publisher.
///
/// Each subscriber gets a small buffer. A subscriber whose buffer is full
/// when a value arrives is dropped (its stream finishes): a client that stops
/// reading must not slow the pipeline. `publish` never waits and allocates
/// nothing per value beyond the stream's own buffer.
public final class LiveBroadcast<Element: Sendable>: Sendable {
    private struct State {
        var nextID = 0
        var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
    }

    private let state = Mutex(State())
    /// At most this many subscribers at once; `subscribe()` returns nil beyond.
    public let maximumSubscribers: Int
    /// Values a subscriber may fall behind by before it is dropped.
    public let bufferSize: Int

    public init(maximumSubscribers: Int = 16, bufferSize: Int = 64) {
        self.maximumSubscribers = maximumSubscribers
        self.bufferSize = bufferSize
    }

    /// The number of current subscribers.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A new subscription, or nil when `maximumSubscribers` are already listening.
    /// Cancelling the consuming task (or dropping the stream) unsubscribes.
    public func subscribe() -> AsyncStream<Element>? {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingOldest(bufferSize))
        let id: Int? = state.withLock { state in
            guard state.subscribers.count < maximumSubscribers else { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every subscriber; subscribers that fell `bufferSize`
    /// values behind are dropped.
    public func publish(_ value: Element) {
        let lagging: [AsyncStream<Element>.Continuation] = state.withLock { state in
            var lagging: [AsyncStream<Element>.Continuation] = []
            for (id, continuation) in state.subscribers {
                if case .dropped = continuation.yield(value) {
                    lagging.append(continuation)
                    state.subscribers.removeValue(forKey: id)
                }
            }
            return lagging
        }
        // Outside the lock: finishing runs onTermination, which takes it.
        for continuation in lagging { continuation.finish() }
    }

    /// Ends every subscription (daemon shutdown).
    public func finishAll() {
        let all = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }
}
