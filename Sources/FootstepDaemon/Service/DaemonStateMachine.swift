/// The daemon's state and every way it changes: the only code that sets it.
///
/// ```
///            waiting                sessionStarted
///  starting ─────────▶ idle ◀──────────────────────────────┐
///     │                 │ ▲                                 │ sessionEnded
///     │ sessionStarted  │ │ sessionEnded / waiting          │
///     ▼                 ▼ │                                 │
///  recording ◀──────────────────── resumed ──────────── paused
///     │  ▲ ───────────────────────── paused ──────────────▶ │
///     │  │ deviceRestored (was recording)                   │ deviceLost
///     ▼  │                                                  ▼
///   device-lost ──────── deviceRestored (was paused) ─────▶ paused
///
///  any state ── shutdownRequested ──▶ stopping (final)
/// ```
///
/// A device that cannot be opened at a session's start is `device-lost`
/// too; the session starting is the way out. Pausing or resuming while the
/// device is lost is remembered and applied when it returns. Events that do
/// not apply to the current state change nothing.
///
/// It also decides what each command does (``command(_:in:)``) and when an open
/// session must end (``sessionMustEnd(shuttingDown:scheduleOpen:)``), from what the
/// commands so far want: a session or none, paused or not. The service task only
/// carries out the ``CommandAction``s it returns.
public struct DaemonStateMachine: Sendable, Equatable {
    public typealias State = DaemonStatus.State

    /// What happened.
    public enum Event: Sendable, Equatable {
        /// No session is wanted (stopped by command, or outside the schedule).
        case waiting
        case sessionStarted
        case paused
        case resumed
        /// Capture stopped delivering (a stall, a device error), or the device cannot be opened.
        case deviceLost
        /// Audio arrives again.
        case deviceRestored
        case sessionEnded
        case shutdownRequested
    }

    /// Where the daemon stands for a command, besides its state.
    public struct Situation: Sendable, Equatable {
        /// The open session; nil between sessions.
        public var session: Int64?
        /// The monitoring schedule in words while its window is closed; nil while it is open.
        public var scheduleClosed: String?
        /// Why the device cannot be opened, while a session waits for it.
        public var deviceError: String?

        public init(session: Int64? = nil, scheduleClosed: String? = nil, deviceError: String? = nil) {
            self.session = session
            self.scheduleClosed = scheduleClosed
            self.deviceError = deviceError
        }
    }

    /// What the service task does for a command.
    public enum CommandAction: Sendable, Equatable {
        /// Answer now; nothing else to do.
        case reply(DaemonCommand.Outcome)
        /// Answer once the next session has started.
        case awaitStart
        /// End the open session; answer once it has ended.
        case endSession
        /// Pause (true) or resume the open session's capture, and answer.
        case setPaused(Bool)
        /// Make the offset the calibration in force. With `restart`, the open session ends and the answer waits
        /// for the next one, which measures with it; without, answer at once.
        case calibrate(offsetDB: Double, restart: Bool)
    }

    public private(set) var state: State = .starting
    /// Paused under a lost device: where `deviceRestored` leads.
    private var pausedWhileLost = false
    /// A session is wanted: false after `stop`, until `start`.
    public private(set) var wantsSession = true
    /// Frames are dropped: after `pause`, until `resume` or `start`. It outlasts a session restart.
    public private(set) var wantsPause = false

    public init() {}

    /// Decides what `command` does in `situation`, and remembers what it wants.
    public mutating func command(_ command: DaemonCommand, in situation: Situation) -> CommandAction {
        switch (command, situation.session) {
        case let (.start, session?):
            return .reply(.refused("already recording (session \(session)); nothing to start"))
        case (.start, nil):
            wantsSession = true
            wantsPause = false
            if let schedule = situation.scheduleClosed { return .reply(.waitingForSchedule(schedule)) }
            if let error = situation.deviceError { return .reply(.waitingForDevice(error)) }
            return .awaitStart
        case (.stop, _?):
            wantsSession = false
            return .endSession
        case (.stop, nil):
            // No session yet, only a wait for the device: stop waiting.
            guard situation.deviceError != nil, wantsSession else {
                return .reply(.refused("nothing to stop: no session is open"))
            }
            wantsSession = false
            return .reply(.stopped(session: nil))
        case (.pause, _?), (.resume, _?):
            let pause = command == .pause
            guard pause != wantsPause else {
                return .reply(.refused(pause ? "already paused" : "nothing to resume: the daemon is \(state.rawValue)"))
            }
            wantsPause = pause
            return .setPaused(pause)
        case (.pause, nil):
            return .reply(.refused("nothing to pause: no session is recording"))
        case (.resume, nil):
            return .reply(.refused("nothing to resume: the daemon is \(state.rawValue)"))
        case let (.calibrate(offsetDB), session):
            return .calibrate(offsetDB: offsetDB, restart: session != nil)
        }
    }

    /// Whether a session is to run now: wanted, and inside the schedule's window.
    public func wantsSession(scheduleOpen: Bool) -> Bool { wantsSession && scheduleOpen }

    /// Why the open session must end now, or nil while it runs on.
    func sessionMustEnd(shuttingDown: Bool, scheduleOpen: Bool) -> SessionEnd? {
        if shuttingDown { return .shutdown }
        if !wantsSession { return .stopCommand }
        if !scheduleOpen { return .scheduleClosed }
        return nil
    }

    /// Applies `event`; returns the new state when it changed, nil when the event does not apply.
    @discardableResult
    public mutating func handle(_ event: Event) -> State? {
        let next: State
        switch (state, event) {
        case (.stopping, _):
            return nil
        case (_, .shutdownRequested):
            next = .stopping
        case (.starting, .waiting), (.recording, .waiting), (.paused, .waiting), (.deviceLost, .waiting),
            (.recording, .sessionEnded), (.paused, .sessionEnded), (.deviceLost, .sessionEnded):
            next = .idle
        case (.starting, .sessionStarted), (.idle, .sessionStarted), (.deviceLost, .sessionStarted),
            (.paused, .resumed):
            next = .recording
        case (.recording, .paused):
            next = .paused
        case (.starting, .deviceLost), (.idle, .deviceLost), (.recording, .deviceLost), (.paused, .deviceLost):
            pausedWhileLost = state == .paused
            next = .deviceLost
        case (.deviceLost, .paused), (.deviceLost, .resumed):
            pausedWhileLost = event == .paused
            return nil
        case (.deviceLost, .deviceRestored):
            next = pausedWhileLost ? .paused : .recording
        default:
            return nil
        }
        if next != .deviceLost { pausedWhileLost = false }
        state = next
        return next
    }
}
