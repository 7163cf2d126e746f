import FootstepStore
import FootstepWire
import Foundation

/// What the control socket needs from the daemon. `FootstepDaemon` implements it
/// (this module cannot depend on it); tests may run the server on any backend.
///
/// - Note: Methods are called concurrently from request tasks; they must not block
///   for long (the store's reads take milliseconds; recording control and writes
///   are messages to the daemon's task).
public protocol ControlBackend: Sendable {
    /// The evidence store, once the daemon has opened it; nil while starting (routes then answer 503).
    var database: FootstepDatabase? { get }
    /// Live level readings (about 8 per second).
    var liveLevels: LiveBroadcast<LiveLevelReading> { get }
    /// Events as they are stored.
    var liveEvents: LiveBroadcast<EventRecord> { get }

    /// The daemon's status as served by `GET /v1/status`.
    func status() throws -> StatusResponse

    /// The time on the recording's clock: that of the audio captured last (a
    /// synthetic or replayed source runs on its own clock); nil when not recording.
    /// A diary entry written without a time is placed here, so a mark lands on
    /// the audio it marks.
    func recordingTime() -> Date?

    /// Asks the daemon to start, pause, resume or stop recording and waits (briefly)
    /// until it has. Throws ``APIError`` (409) when the action does not apply.
    func perform(_ action: RecordingAction) async throws -> ActionResponse

    /// The configuration in force.
    func configuration() -> ConfigurationResponse

    /// Re-reads and validates the configuration file, then applies it.
    /// Throws ``APIError`` (422 with the loader's message; 409 without a file).
    func reloadConfiguration() async throws -> ActionResponse

    /// Runs `body` where the daemon writes to the store (its one writer) and
    /// returns its result; errors from `body` (a `StoreError`) are rethrown.
    /// Throws ``APIError`` (503) while the store is not open.
    func write<Result: Sendable>(_ body: @escaping @Sendable (FootstepDatabase) throws -> Result) async throws -> Result

    /// Deletes a closed session (``FootstepDatabase/deleteSession(_:reason:at:)``) where the daemon writes, and
    /// brings what the status counts (today's events) in line with the store.
    func deleteSession(_ id: Int64, reason: String) async throws -> SessionDeletion

    /// Stores a review (``FootstepDatabase/review(_:_:by:reason:at:)``) where the daemon writes, and brings
    /// what the status counts (today's footsteps, rejected ones left out) in line with the store.
    func review(_ target: ReviewTarget, _ action: ReviewAction, by reviewer: Reviewer, reason: String) async throws
        -> ReviewOutcome

    /// Applies a calibration offset (already stored) to the levels from now on.
    func applyCalibration(offsetDB: Double) async throws

    /// An audio clip of `event`: the saved per-event clip, or one cut from the
    /// rolling audio; nil when neither exists (pruned audio, no audio kept).
    func clip(for event: EventRecord) async throws -> ClipFile?
}

/// An audio clip to send.
public struct ClipFile: Sendable, Equatable {
    /// The file's bytes.
    public var data: Data
    /// `audio/flac` or `audio/wav`.
    public var contentType: String
    /// A file name for `Content-Disposition` (`event-42.flac`).
    public var fileName: String

    public init(data: Data, contentType: String, fileName: String) {
        self.data = data
        self.contentType = contentType
        self.fileName = fileName
    }
}

extension ControlBackend {
    /// The deletion alone, for a backend whose status counts nothing.
    public func deleteSession(_ id: Int64, reason: String) async throws -> SessionDeletion {
        try await write { try $0.deleteSession(id, reason: reason) }
    }

    /// The review alone, for a backend whose status counts nothing.
    public func review(_ target: ReviewTarget, _ action: ReviewAction, by reviewer: Reviewer, reason: String)
        async throws -> ReviewOutcome
    {
        try await write { try $0.review(target, action, by: reviewer, reason: reason) }
    }
}
