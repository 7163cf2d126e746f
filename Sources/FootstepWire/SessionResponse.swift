import Foundation

/// A session with its totals (`GET /v1/sessions`, `GET /v1/sessions/{id}`).
public struct SessionResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var title: String
    public var notes: String
    /// `recording`, `paused`, `completed` or `interrupted`.
    public var status: String
    public var startedAt: Date
    public var endedAt: Date?
    /// Seconds from start to end (or to the latest data while open).
    public var durationSeconds: Double
    public var device: String
    public var sampleRate: Int
    public var channels: Int
    /// IANA zone at start, e.g. `Europe/London`.
    public var timeZone: String
    /// Events of all kinds.
    public var eventCount: Int
    /// Events of kind footstep.
    public var footstepCount: Int
    public var audioFileCount: Int
    public var audioBytes: Int64
    public var gapCount: Int
    public var gapSeconds: Double
    /// Why it ended ("stopped on request (footstepctl stop)"); nil while open or not recorded.
    public var endReason: String?

    public init(
        id: Int64, title: String, notes: String, status: String, startedAt: Date, endedAt: Date?,
        durationSeconds: Double, device: String, sampleRate: Int, channels: Int, timeZone: String, eventCount: Int,
        footstepCount: Int, audioFileCount: Int, audioBytes: Int64, gapCount: Int, gapSeconds: Double,
        endReason: String? = nil
    ) {
        self.id = id
        self.title = title
        self.notes = notes
        self.status = status
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.durationSeconds = durationSeconds
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        self.timeZone = timeZone
        self.eventCount = eventCount
        self.footstepCount = footstepCount
        self.audioFileCount = audioFileCount
        self.audioBytes = audioBytes
        self.gapCount = gapCount
        self.gapSeconds = gapSeconds
        self.endReason = endReason
    }

    enum CodingKeys: String, CodingKey {
        case id, title, notes, status, device, channels
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case durationSeconds = "duration_seconds"
        case sampleRate = "sample_rate"
        case timeZone = "time_zone"
        case eventCount = "event_count"
        case footstepCount = "footstep_count"
        case audioFileCount = "audio_file_count"
        case audioBytes = "audio_bytes"
        case gapCount = "gap_count"
        case gapSeconds = "gap_seconds"
        case endReason = "end_reason"
    }
}

/// `GET /v1/sessions`.
public struct SessionListResponse: Codable, Sendable, Equatable {
    /// Oldest first.
    public var items: [SessionResponse]

    public init(items: [SessionResponse]) { self.items = items }
}

/// `PATCH /v1/sessions/{id}`: the fields to change; absent fields stay.
public struct SessionPatchRequest: Codable, Sendable, Equatable {
    public var title: String?
    public var notes: String?

    public init(title: String? = nil, notes: String? = nil) {
        self.title = title
        self.notes = notes
    }
}

/// `DELETE /v1/sessions/{id}`: what was removed.
public struct SessionDeletionResponse: Codable, Sendable, Equatable {
    public var sessionId: Int64
    /// Events removed (the hash chain records the deletion).
    public var eventsDeleted: Int
    /// Audio files and clips removed from disk.
    public var filesDeleted: Int

    public init(sessionId: Int64, eventsDeleted: Int, filesDeleted: Int) {
        self.sessionId = sessionId
        self.eventsDeleted = eventsDeleted
        self.filesDeleted = filesDeleted
    }

    enum CodingKeys: String, CodingKey {
        case sessionId = "session_id"
        case eventsDeleted = "events_deleted"
        case filesDeleted = "files_deleted"
    }
}
