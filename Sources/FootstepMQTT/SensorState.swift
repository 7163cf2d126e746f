import Foundation

/// What the daemon is doing, as `<prefix>/state` tells it: the daemon gives it on every change
/// (``OutboxPublisher/activityChanged(_:)``).
public struct SensorActivity: Sendable, Equatable {
    /// The daemon's state (`recording`, `paused`, `idle`, `device-lost`, `starting`, `stopping`).
    public var state: String
    public var recording: Bool
    /// The microphone is lost or the capture is failing.
    public var microphoneProblem: Bool
    /// The open session, if any.
    public var session: Int64?

    public init(state: String, recording: Bool, microphoneProblem: Bool, session: Int64?) {
        self.state = state
        self.recording = recording
        self.microphoneProblem = microphoneProblem
        self.session = session
    }
}

/// What `<prefix>/state` says (retained): the ``SensorActivity`` and the footsteps stored in the last hour.
public struct SensorState: Sendable, Equatable, Encodable {
    /// The daemon's state (`recording`, `paused`, `idle`, `device-lost`, `starting`, `stopping`).
    public var state: String
    public var recording: Bool
    /// The microphone is lost or the capture is failing.
    public var microphone_problem: Bool
    /// The open session, if any.
    public var session: Int64?
    /// Footsteps stored in the last hour.
    public var footsteps_last_hour: Int

    public init(_ activity: SensorActivity, footstepsLastHour: Int) {
        state = activity.state
        recording = activity.recording
        microphone_problem = activity.microphoneProblem
        session = activity.session
        footsteps_last_hour = footstepsLastHour
    }
}
