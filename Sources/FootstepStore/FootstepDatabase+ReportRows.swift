import FootstepCore
import Foundation
import GRDB

/// The columns of an event a report reads (no hash chain, no frame offsets).
public struct EventReportRow: Sendable, Equatable {
    public var id: Int64
    public var sessionId: Int64
    /// Onset, exact to the stored millisecond.
    public var timestamp: Date
    public var duration: Double
    /// The current kind (the latest revision's, or the stored one).
    public var kind: EventKind
    /// The current type (the latest revision's, or the stored one).
    public var type: FootstepType
    /// The current type's confidence.
    public var confidence: Double
    public var intensity: Intensity
    public var laMax: Double
    public var lcMax: Double?
    public var sel: Double
    public var notes: String
    public var clipPath: String?
    public var clipSha256: String?
    /// The stored (live) label, when a revision changed it: its type for a
    /// footstep, `other` otherwise; nil when no revision changed the label.
    public var revisedFrom: String?
    /// The latest review's verdict, reviewer and reason; nil when nobody reviewed the event.
    public var review: Review?

    /// An event's latest review as a report names it.
    public struct Review: Sendable, Equatable {
        public var verdict: ReviewVerdict
        /// The reviewer's user name.
        public var reviewer: String
        public var reason: String

        public init(verdict: ReviewVerdict, reviewer: String, reason: String) {
            self.verdict = verdict
            self.reviewer = reviewer
            self.reason = reason
        }
    }
}

/// The columns of a level minute a report reads.
public struct LevelReportRow: Sendable, Equatable {
    public var start: Date
    public var seconds: Double
    public var laeq: Double
    public var lceq: Double
    public var lafMax: Double
    public var la90: Double
}

/// Read-optimised queries for reports over many rows (a busy month is 100,000 events
/// and 43,200 level minutes): raw SQL selecting only the columns a report needs,
/// stepped once through a cursor with values read by column index, times converted
/// to integer milliseconds by SQLite (exact, no date parsing in Swift). One read
/// transaction: a consistent snapshot that never blocks the daemon's writes.
extension FootstepDatabase {
    /// Calls `body` for every event with its onset in `[from, to)` (optionally of one
    /// session), ordered by `(timestamp, id)`.
    ///
    /// - Throws: ``StoreError/invalidValue(_:)`` naming the row when a stored kind, type or
    ///   intensity is not one this build knows (a tampered database), or any store error.
    public func forEachReportEvent(
        from: Date, to: Date, session: Int64? = nil, _ body: (EventReportRow) throws -> Void
    ) throws(StoreError) {
        let sql = """
            SELECT id, sessionId, \(Self.millisecondsSQL("timestamp")), duration, COALESCE(revisedKind, kind),
                   COALESCE(revisedType, type), COALESCE(revisedConfidence, confidence), intensity, laMax, lcMax, sel,
                   notes, clipPath, clipSha256,
                   CASE WHEN COALESCE(revisedKind, kind) <> kind OR COALESCE(revisedType, type) <> type
                        THEN CASE kind WHEN 'footstep' THEN type ELSE kind END END,
                   reviewVerdict,
                   CASE WHEN reviewVerdict IS NOT NULL THEN
                     (SELECT reviewer FROM typeRevision r
                      WHERE r.eventId = event.id AND r.verdict IS NOT NULL ORDER BY r.id DESC LIMIT 1) END,
                   CASE WHEN reviewVerdict IS NOT NULL THEN
                     (SELECT reason FROM typeRevision r
                      WHERE r.eventId = event.id AND r.verdict IS NOT NULL ORDER BY r.id DESC LIMIT 1) END
            FROM event WHERE timestamp >= ? AND timestamp < ?\(session == nil ? "" : " AND sessionId = ?")
            ORDER BY timestamp, id
            """
        try read { db in
            let statement = try db.makeStatement(sql: sql)
            statement.arguments = Self.rangeArguments(from: from, to: to, session: session)
            let rows = try Row.fetchCursor(statement)
            while let row = try rows.next() {
                let id: Int64 = row[0]
                func decoded<T: RawRepresentable<String>>(_ index: Int, _ column: String) throws -> T {
                    let text: String = row[index]
                    guard let value = T(rawValue: text) else {
                        throw StoreError.invalidValue("event row \(id): column \(column) holds '\(text)' (run footstepctl verify)")
                    }
                    return value
                }
                try body(EventReportRow(
                    id: id, sessionId: row[1], timestamp: try Self.date(milliseconds: row[2], table: "event", id: id),
                    duration: row[3], kind: try decoded(4, "kind"), type: try decoded(5, "type"), confidence: row[6],
                    intensity: try decoded(7, "intensity"), laMax: row[8], lcMax: row[9], sel: row[10], notes: row[11],
                    clipPath: (row[12] as String?).map(resolve), clipSha256: row[13],
                    revisedFrom: try (row[14] as String?).map { label in
                        guard FootstepType(rawValue: label) != nil || EventKind(rawValue: label) != nil else {
                            throw StoreError.invalidValue("event row \(id): its stored label is '\(label)' (run footstepctl verify)")
                        }
                        return label
                    },
                    review: try (row[15] as String?).map { text in
                        guard let verdict = ReviewVerdict(rawValue: text) else {
                            throw StoreError.invalidValue("event row \(id): its review is '\(text)' (run footstepctl verify)")
                        }
                        return EventReportRow.Review(
                            verdict: verdict, reviewer: (row[16] as String?) ?? "", reason: (row[17] as String?) ?? "")
                    }))
            }
        }
    }

    /// Every level minute starting in `[from, to)` (optionally of one session), ordered by `(startedAt, id)`.
    public func reportLevels(from: Date, to: Date, session: Int64? = nil) throws(StoreError) -> [LevelReportRow] {
        let sql = """
            SELECT id, \(Self.millisecondsSQL("startedAt")), seconds, laeq, lceq, lafMax, la90
            FROM levelMinute WHERE startedAt >= ? AND startedAt < ?\(session == nil ? "" : " AND sessionId = ?")
            ORDER BY startedAt, id
            """
        return try read { db in
            let statement = try db.makeStatement(sql: sql)
            statement.arguments = Self.rangeArguments(from: from, to: to, session: session)
            let rows = try Row.fetchCursor(statement)
            var result: [LevelReportRow] = []
            while let row = try rows.next() {
                result.append(LevelReportRow(
                    start: try Self.date(milliseconds: row[1], table: "levelMinute", id: row[0]), seconds: row[2],
                    laeq: row[3], lceq: row[4], lafMax: row[5], la90: row[6]))
            }
            return result
        }
    }

    /// SQL for the stored text time in `column` as integer milliseconds since 1970 (NULL if malformed).
    private static func millisecondsSQL(_ column: String) -> String {
        "CAST(strftime('%s', \(column)) AS INTEGER) * 1000 + CAST(substr(\(column), 21, 3) AS INTEGER)"
    }

    private static func rangeArguments(from: Date, to: Date, session: Int64?) -> StatementArguments {
        var arguments: StatementArguments = [StoredDate.text(from), StoredDate.text(to)]
        if let session { arguments += [session] }
        return arguments
    }

    private static func date(milliseconds: Int64?, table: String, id: Int64) throws -> Date {
        guard let milliseconds else {
            throw StoreError.invalidValue("\(table) row \(id): its time is not a stored time (run footstepctl verify)")
        }
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
