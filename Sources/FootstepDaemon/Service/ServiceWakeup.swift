import Synchronization

/// Wakes the service task from any thread: the capture thread after it posts
/// reports, a command from the control socket, the control socket coming up.
///
/// The service task sleeps in ``wait(until:)`` until the next of these or its
/// next timer (flush, watchdog, housekeeping), whichever comes first. Signals
/// coalesce: any number of ``signal()``s before a `wait` make it return at
/// once, once. One task waits at a time (the service's).
final class ServiceWakeup: Sendable {
    private struct State {
        /// A signal arrived while nobody waited.
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// The waiter's deadline timer (cancelled when a signal comes first).
        var timer: Task<Void, Never>?
        /// Tells a late timer of an earlier wait from the current one.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Wakes the waiting task, or the next one to wait. Cheap and safe from any thread.
    func signal() {
        let (waiter, timer) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            guard let waiter = state.waiter else {
                state.pending = true
                return (nil, nil)
            }
            defer {
                state.waiter = nil
                state.timer = nil
            }
            return (waiter, state.timer)
        }
        timer?.cancel()
        waiter?.resume()
    }

    /// Returns at the next signal (at once when one came since the last
    /// wait), at `deadline`, or when the task is cancelled.
    func wait(until deadline: ContinuousClock.Instant) async {
        guard !Task.isCancelled else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let generation: UInt64? = state.withLock { state in
                    if state.pending {
                        state.pending = false
                        return nil
                    }
                    state.generation &+= 1
                    state.waiter = continuation
                    return state.generation
                }
                guard let generation else {
                    continuation.resume()
                    return
                }
                let timer = Task { [self] in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    expire(generation)
                }
                let late = state.withLock { state -> Bool in
                    guard state.generation == generation, state.waiter != nil else { return true }
                    state.timer = timer
                    return false
                }
                if late { timer.cancel() }
            }
        } onCancel: {
            signal()
        }
    }

    /// Ends the wait of `generation` if it still waits (its deadline passed).
    private func expire(_ generation: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.timer = nil
            return waiter
        }
        waiter?.resume()
    }
}
