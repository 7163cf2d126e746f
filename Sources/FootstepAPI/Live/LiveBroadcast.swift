import Synchronization

/// Fans values out to live subscribers (`/v1/levels/live`, `/v1/events/live`)
/// without ever blocking the publisher.
///
/// Each subscriber gets a small buffer. A subscriber whose buffer is full
/// when a value arrives is dropped (its stream finishes): a client that stops
/// reading must not slow the pipeline. `publish` never waits and allocates
/// nothing per value beyond the stream's own buffer.
///
/// No continuation is yielded to or finished while the lock is held:
/// yielding resumes the subscriber's task, which takes that task's status
/// lock, and cancelling that task holds its status lock while
/// `onTermination` takes this one — the two orders together deadlock.
public final class LiveBroadcast<Element: Sendable>: Sendable {
    private typealias Subscriber = (id: Int, continuation: AsyncStream<Element>.Continuation)

    private struct State {
        var nextID = 0
        /// The current subscribers. `publish` takes the array under the lock
        /// (a reference; copy-on-write copies it only if it changes while
        /// `publish` still holds it) and yields to them outside it.
        var subscribers: [Subscriber] = []

        mutating func remove(_ id: Int) -> AsyncStream<Element>.Continuation? {
            guard let index = subscribers.firstIndex(where: { $0.id == id }) else { return nil }
            return subscribers.remove(at: index).continuation
        }
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
            state.subscribers.append((state.nextID, continuation))
            return state.nextID
        }
        guard let id else { return nil }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.remove(id) }
        }
        return stream
    }

    /// Sends `value` to every subscriber; subscribers that fell `bufferSize`
    /// values behind are dropped.
    public func publish(_ value: Element) {
        let subscribers = state.withLock { $0.subscribers }
        for subscriber in subscribers {
            if case .dropped = subscriber.continuation.yield(value) {
                // Finishing runs onTermination, which takes the lock: outside it.
                state.withLock { $0.remove(subscriber.id) }?.finish()
            }
        }
    }

    /// Ends every subscription (daemon shutdown).
    public func finishAll() {
        let all = state.withLock { state in
            defer { state.subscribers = [] }
            return state.subscribers
        }
        for subscriber in all { subscriber.continuation.finish() }
    }
}
