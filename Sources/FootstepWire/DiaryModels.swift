import Foundation

/// `POST /v1/diary`: a diary entry (what happened, when, how long) or a mark ("now").
public struct DiaryEntryRequest: Codable, Sendable, Equatable {
    /// `note` (default) or `mark`.
    public var kind: String?
    /// When it happened; default: now.
    public var at: Date?
    public var durationSeconds: Double?
    public var text: String

    public init(kind: String? = nil, at: Date? = nil, durationSeconds: Double? = nil, text: String) {
        self.kind = kind
        self.at = at
        self.durationSeconds = durationSeconds
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case kind, at, text
        case durationSeconds = "duration_seconds"
    }
}

/// A stored diary entry.
public struct DiaryEntryResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var kind: String
    public var at: Date
    public var durationSeconds: Double?
    public var text: String
    public var writtenAt: Date
    /// Its link in the diary's hash chain.
    public var hash: String

    public init(
        id: Int64, kind: String, at: Date, durationSeconds: Double?, text: String, writtenAt: Date, hash: String
    ) {
        self.id = id
        self.kind = kind
        self.at = at
        self.durationSeconds = durationSeconds
        self.text = text
        self.writtenAt = writtenAt
        self.hash = hash
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, at, text, hash
        case durationSeconds = "duration_seconds"
        case writtenAt = "written_at"
    }
}
