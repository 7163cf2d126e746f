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

    public private(set) var state: State = .starting
    /// Paused under a lost device: where `deviceRestored` leads.
    private var pausedWhileLost = false

    public init() {}

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
