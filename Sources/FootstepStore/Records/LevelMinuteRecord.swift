import Foundation
import GRDB

/// Level statistics of one minute (or a shorter last interval) of a session
/// (table `levelMinute`). All levels are calibrated dB.
public struct LevelMinuteRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// The session measured.
    public var sessionId: Int64
    /// Start of the interval (UTC).
    public var startedAt: Date
    /// Length of the interval in seconds (60 except at session start/end or around gaps).
    public var seconds: Double
    /// Equivalent continuous A-weighted level, dB(A).
    public var laeq: Double
    /// Equivalent continuous C-weighted level, dB(C).
    public var lceq: Double
    /// Maximum A-weighted fast level, dB(A).
    public var lafMax: Double
    /// Minimum A-weighted fast level, dB(A).
    public var lafMin: Double
    /// Level exceeded 10 % of the time, dB(A).
    public var la10: Double
    /// Level exceeded 90 % of the time (background), dB(A).
    public var la90: Double

    /// Creates a level minute value.
    public init(
        id: Int64? = nil, sessionId: Int64, startedAt: Date, seconds: Double = 60, laeq: Double, lceq: Double,
        lafMax: Double, lafMin: Double, la10: Double, la90: Double
    ) {
        self.id = id
        self.sessionId = sessionId
        self.startedAt = startedAt
        self.seconds = seconds
        self.laeq = laeq
        self.lceq = lceq
        self.lafMax = lafMax
        self.lafMin = lafMin
        self.la10 = la10
        self.la90 = la90
    }

    /// End of the interval.
    public var endsAt: Date { startedAt.addingTimeInterval(seconds) }
}

extension LevelMinuteRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text, without `DateFormatter` (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }

    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `levelMinute`.
    public static let databaseTableName = "levelMinute"

    /// Column names.
    public enum Columns {
        public static let id = Column("id")
        public static let sessionId = Column("sessionId")
        public static let startedAt = Column("startedAt")
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
