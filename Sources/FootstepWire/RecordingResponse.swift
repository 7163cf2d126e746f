import Foundation

/// One audio file of the recordings (`GET /v1/recordings`, `footstepctl recordings list --json`).
public struct RecordingResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var session: Int64
    public var path: String
    /// The wall-clock time of its first frame.
    public var startedAt: Date
    public var durationSeconds: Double
    /// Its size once closed (0 while open).
    public var bytes: Int64
    /// Its SHA-256 once closed.
    public var sha256: String?
    /// `open` (being written), `closed` (complete) or `pruned` (deleted by retention; the row stays).
    public var state: String
    public var sampleRate: Int
    public var channels: Int
    /// `flac` or `wav`.
    public var format: String

    public init(
        id: Int64, session: Int64, path: String, startedAt: Date, durationSeconds: Double, bytes: Int64,
        sha256: String?, state: String, sampleRate: Int, channels: Int, format: String
    ) {
        self.id = id
        self.session = session
        self.path = path
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.bytes = bytes
        self.sha256 = sha256
        self.state = state
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
    }

    enum CodingKeys: String, CodingKey {
        case id, session, path, bytes, sha256, state, channels, format
        case startedAt = "started_at"
        case durationSeconds = "duration_seconds"
        case sampleRate = "sample_rate"
    }
}
