import Foundation

/// A session with the totals a listing needs (`footstepctl sessions`, the API).
public struct SessionSummary: Sendable, Hashable, Identifiable {
    /// The session row.
    public var session: SessionRecord
    /// Events of all kinds.
    public var eventCount: Int
    /// Events of kind `footstep`, those a review rejected left out.
    public var footstepCount: Int
    /// Audio files recorded.
    public var audioFileCount: Int
    /// Total size of the audio files in bytes.
    public var audioBytes: Int64
    /// Recorded capture gaps.
    public var gapCount: Int
    /// Total length of the gaps in seconds.
    public var gapSeconds: Double
    /// Time of the latest written data (event end, level minute end or audio end), if any.
    public var lastDataAt: Date?

    /// The session's id.
    public var id: Int64? { session.id }

    /// Length of the session in seconds: until `endedAt` once ended, else until the latest data.
    public var duration: TimeInterval {
        let end = session.endedAt ?? lastDataAt ?? session.startedAt
        return max(0, end.timeIntervalSince(session.startedAt))
    }
}
