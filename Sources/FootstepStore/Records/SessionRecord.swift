import Foundation
import GRDB

/// One recording session: from the daemon starting to listen until it stops
/// (table `session`).
///
/// Times are UTC (`Date`); `timeZone` keeps the IANA identifier of the local
/// zone at start so reports can show local wall-clock times as the user lived them.
public struct SessionRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// When capture started (UTC): the anchor of the session's sample clock.
    public var startedAt: Date
    /// When the session ended; nil while it is open.
    public var endedAt: Date?
    /// Life-cycle state.
    public var status: SessionStatus
    /// A short user-visible name ("Upstairs, week 3").
    public var title: String
    /// Free user notes (not part of the evidence hash).
    public var notes: String
    /// The capture device (ALSA name, file path or "synthetic:<scenario>").
    public var device: String
    /// Samples per second of the capture.
    public var sampleRate: Int
    /// Channel count of the capture.
    public var channels: Int
    /// IANA identifier of the local time zone at start, e.g. "Europe/London".
    public var timeZone: String
    /// Why it ended, in words a reader of the report understands ("stopped with footstepctl stop",
    /// "the monitoring window closed"); nil while open, or for a session ended before v10.
    public var endReason: String?

    /// The end reason of a session footstepd found open at its next start.
    public static let interruptedReason = "footstepd stopped without closing it: a crash, a power cut or a kill"

    /// Creates a session value.
    public init(
        id: Int64? = nil, startedAt: Date, endedAt: Date? = nil, status: SessionStatus = .recording,
        title: String = "", notes: String = "", device: String, sampleRate: Int, channels: Int = 1,
        timeZone: String = TimeZone.current.identifier, endReason: String? = nil
    ) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.status = status
        self.title = title
        self.notes = notes
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        self.timeZone = timeZone
        self.endReason = endReason
    }
}

extension SessionRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text, without `DateFormatter` (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }

    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `session`.
    public static let databaseTableName = "session"

    /// Column names (camelCase, equal to the property names).
    public enum Columns {
        public static let id = Column("id")
        public static let startedAt = Column("startedAt")
        public static let endedAt = Column("endedAt")
        public static let status = Column("status")
        public static let title = Column("title")
        public static let notes = Column("notes")
        public static let endReason = Column("endReason")
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
