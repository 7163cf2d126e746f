import FootstepStore
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

    /// The wire form of a stored audio file.
    public init(_ file: AudioFileRecord) {
        id = file.id ?? 0
        session = file.sessionId
        path = file.path
        startedAt = file.startedAt
        durationSeconds = Double(file.frames) / Double(file.sampleRate)
        bytes = file.bytes
        sha256 = file.sha256
        state = file.prunedAt != nil ? "pruned" : file.closedAt == nil ? "open" : "closed"
        sampleRate = file.sampleRate
        channels = file.channels
        format = file.format.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case id, session, path, bytes, sha256, state, channels, format
        case startedAt = "started_at"
        case durationSeconds = "duration_seconds"
        case sampleRate = "sample_rate"
    }
}
