import FootstepCore
import Foundation
import GRDB

/// A gait bout: a run of footsteps close enough in time to be one walk or run
/// across the room (table `bout`).
public struct BoutRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// The session it happened in.
    public var sessionId: Int64
    /// Time of the first step (UTC).
    public var startedAt: Date
    /// Time of the end of the last step (UTC).
    public var endedAt: Date
    /// Number of steps.
    public var steps: Int
    /// Steps per second.
    public var cadence: Double
    /// The most frequent step type.
    public var dominantType: FootstepType
    /// Walking or running.
    public var kind: BoutKind

    /// Creates a bout value.
    public init(
        id: Int64? = nil, sessionId: Int64, startedAt: Date, endedAt: Date, steps: Int, cadence: Double,
        dominantType: FootstepType, kind: BoutKind
    ) {
        self.id = id
        self.sessionId = sessionId
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.steps = steps
        self.cadence = cadence
        self.dominantType = dominantType
        self.kind = kind
    }
}

extension BoutRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text, without `DateFormatter` (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }

    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `bout`.
    public static let databaseTableName = "bout"

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
