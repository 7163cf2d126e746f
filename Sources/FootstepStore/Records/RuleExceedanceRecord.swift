import FootstepCore
import Foundation
import GRDB

/// A noise rule exceeded, recorded as it happened (table `ruleExceedance`): by one event, one
/// level minute, or a clock hour that reached the rule's count. Stored in the transaction that
/// stores what exceeded it (``FootstepDatabase/checkingRules(_:)``), and published over MQTT.
public struct RuleExceedanceRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    public var sessionId: Int64
    /// The rule's name (``ReportRule/name``).
    public var rule: String
    /// The rule's metric (``ReportRule/Metric``).
    public var metric: ReportRule.Metric
    /// The event's onset, the level minute's start, or the start of the clock hour that reached the count.
    public var startedAt: Date
    /// What exceeded the limit: the level (dB), or the count in the hour.
    public var value: Double
    /// The limit that applied then (dB, or a count).
    public var threshold: Double
    /// `footstep` (a footstep made it, or one is in the minute or hour), `other` (only other impacts) or
    /// `background` (a minute without any detected impact).
    public var cause: String
    /// The event that exceeded an event rule checked one by one.
    public var eventId: Int64?
    /// The level minute that exceeded a minute rule checked one by one.
    public var levelMinuteId: Int64?
    /// Unique per exceedance (`rule|event|12`, `rule|minute|40`, `rule|hour|2026-12-07 22:00:00.000`):
    /// an hour that reached a count is recorded once, however often it is checked again.
    public var key: String

    public init(
        id: Int64? = nil, sessionId: Int64, rule: String, metric: ReportRule.Metric, startedAt: Date, value: Double,
        threshold: Double, cause: String, eventId: Int64? = nil, levelMinuteId: Int64? = nil, key: String
    ) {
        self.id = id
        self.sessionId = sessionId
        self.rule = rule
        self.metric = metric
        self.startedAt = startedAt
        self.value = value
        self.threshold = threshold
        self.cause = cause
        self.eventId = eventId
        self.levelMinuteId = levelMinuteId
        self.key = key
    }
}

extension RuleExceedanceRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text, without `DateFormatter` (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }

    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `ruleExceedance`.
    public static let databaseTableName = "ruleExceedance"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
