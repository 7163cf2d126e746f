import FootstepStore

/// A request to the daemon (from the control socket). The service task
/// carries it out and replies with a ``DaemonCommand/Outcome`` that says what
/// happened: `FootstepDaemonService.send(_:within:)`.
public enum DaemonCommand: Sendable, Equatable {
    /// Start a session if none is open (replies once it has started, or why it has not).
    case start
    /// End the open session as `completed` (replies once it has ended).
    case stop
    /// Read and drop frames; write no audio.
    case pause
    /// Record again after a pause (a new audio file, the clock re-anchored).
    case resume
    /// A new calibration offset, already stored: it wins over the configuration
    /// file's from now on, and an open session ends so that a new one measures
    /// with it (replies once the new session has started).
    case calibrate(offsetDB: Double)

    /// What the daemon did.
    public enum Outcome: Sendable, Equatable {
        case started(session: Int64)
        /// No session yet: the monitoring schedule's window is closed; it starts when it opens.
        case waitingForSchedule(String)
        /// No session yet: the device cannot be opened; it starts when the device returns.
        case waitingForDevice(String)
        /// The session ended; nil when no session had started yet (the device never opened).
        case stopped(session: Int64?)
        case paused(session: Int64)
        case resumed(session: Int64)
        /// The calibration applies; `session` is the session that measures with it (nil when none is open).
        case calibrated(session: Int64?)
        /// Nothing done: the daemon's state does not allow it (the reason says why).
        case refused(String)
        /// No reply in time (the daemon is stuck or very busy).
        case timedOut
        /// The daemon is shutting down.
        case shuttingDown
    }
}

/// Commands and store writes on their way to the service task, and the
/// callers waiting for their replies. Each reply is given once: by the
/// service task, by the caller's timeout, or by shutdown, whichever comes
/// first.
struct CommandMailbox {
    typealias Ticket = UInt64
    /// A write to run on the service task: it resumes its caller (nil: the daemon is shutting down).
    typealias Write = @Sendable (FootstepDatabase?) -> Void

    private var queue: [(ticket: Ticket, command: DaemonCommand)] = []
    private var writes: [Write] = []
    private var waiting: [Ticket: CheckedContinuation<DaemonCommand.Outcome, Never>] = [:]
    /// Each waiting caller's timeout, cancelled when the reply comes first.
    private var timers: [Ticket: Task<Void, Never>] = [:]
    private var nextTicket: Ticket = 0
    private var closed = false

    /// Queues `command`; returns its ticket, or nil when the mailbox is closed (shutting down).
    mutating func post(
        _ command: DaemonCommand, replyTo continuation: CheckedContinuation<DaemonCommand.Outcome, Never>
    ) -> Ticket? {
        guard !closed else { return nil }
        nextTicket += 1
        queue.append((nextTicket, command))
        waiting[nextTicket] = continuation
        return nextTicket
    }

    /// Keeps `timer`, the timeout of `ticket`'s caller, to cancel it when the
    /// reply comes; false when the reply came already (the caller cancels it).
    mutating func setTimer(_ timer: Task<Void, Never>, for ticket: Ticket) -> Bool {
        guard waiting[ticket] != nil else { return false }
        timers[ticket] = timer
        return true
    }

    /// Queues a store write; false when the mailbox is closed (shutting down).
    mutating func post(_ write: @escaping Write) -> Bool {
        guard !closed else { return false }
        writes.append(write)
        return true
    }

    /// The writes posted since the last call, in order.
    mutating func takeWrites() -> [Write] {
        defer { writes.removeAll(keepingCapacity: true) }
        return writes
    }

    /// The commands posted since the last call, in order.
    mutating func take() -> [(ticket: Ticket, command: DaemonCommand)] {
        defer { queue.removeAll(keepingCapacity: true) }
        return queue
    }

    /// Removes the caller waiting on `ticket` (nil when it was answered already).
    mutating func answer(_ ticket: Ticket) -> CheckedContinuation<DaemonCommand.Outcome, Never>? {
        queue.removeAll { $0.ticket == ticket }
        timers.removeValue(forKey: ticket)?.cancel()
        return waiting.removeValue(forKey: ticket)
    }

    /// Refuses further commands and writes; returns every caller still waiting
    /// for a command's reply and the writes not run.
    mutating func close() -> (replies: [CheckedContinuation<DaemonCommand.Outcome, Never>], writes: [Write]) {
        closed = true
        queue.removeAll()
        defer {
            waiting.removeAll()
            writes.removeAll()
            for timer in timers.values { timer.cancel() }
            timers.removeAll()
        }
        return (Array(waiting.values), writes)
    }
}
