import Foundation
import GRDB

/// A stretch of a session in which nothing was captured: the device was lost,
/// overran, or the daemon was paused (table `sessionGap`).
public struct SessionGapRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// The session the gap belongs to.
    public var sessionId: Int64
    /// First instant without capture (UTC).
    public var startedAt: Date
    /// First instant with capture again (UTC).
    public var endedAt: Date
    /// Why, in words a reader of the report understands ("USB microphone unplugged").
    public var reason: String

    /// Creates a gap value.
    public init(id: Int64? = nil, sessionId: Int64, startedAt: Date, endedAt: Date, reason: String) {
        self.id = id
        self.sessionId = sessionId
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.reason = reason
    }

    /// Length of the gap in seconds.
    public var seconds: TimeInterval { endedAt.timeIntervalSince(startedAt) }
}

extension SessionGapRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text, without `DateFormatter` (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }

    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `sessionGap`.
    public static let databaseTableName = "sessionGap"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
