import Foundation
import GRDB

extension FootstepDatabase {
    /// Appends level minutes (the `id`s given are ignored) in one transaction, with the rules they
    /// exceed (``checkingRules(_:)``).
    ///
    /// - Parameter recovering: As for ``appendEvents(_:recovering:)``: into a session that may have ended.
    /// - Returns: The new ids, in order.
    @discardableResult
    public func appendLevels(_ levels: [LevelMinuteRecord], recovering: Bool = false) throws(StoreError) -> [Int64] {
        for level in levels {
            let values = [level.seconds, level.laeq, level.lceq, level.lafMax, level.lafMin, level.la10, level.la90]
            guard values.allSatisfy(\.isFinite), level.seconds > 0 else {
                throw .invalidValue("level minute at \(level.startedAt) has a non-finite level or no duration")
            }
        }
        return try write { db in
            var checked: Set<Int64> = []
            var stored: [LevelMinuteRecord] = []
            for var level in levels {
                if checked.insert(level.sessionId).inserted {
                    _ = try recovering ? Self.requireSession(db, level.sessionId) : Self.openSession(db, level.sessionId)
                }
                level.id = nil
                try level.insert(db)
                stored.append(level)
            }
            if let ruleWatch { try Self.recordExceedances(db, levels: stored, watch: ruleWatch) }
            return stored.map { $0.id! }
        }
    }

    /// A session's latest level minute (by start), if it has one.
    public func lastLevelMinute(session sessionId: Int64) throws(StoreError) -> LevelMinuteRecord? {
        try read { db in
            try LevelMinuteRecord.fetchOne(
                db, sql: "SELECT * FROM levelMinute WHERE sessionId = ? ORDER BY startedAt DESC, id DESC LIMIT 1",
                arguments: [sessionId])
        }
    }

    /// Level minutes starting in `[from, to)`, ordered by `(startedAt, id)`.
    ///
    /// - Parameters:
    ///   - session: Only this session.
    ///   - after: Continue after this cursor.
    ///   - limit: Page size; nil returns everything in the range (a week is ~10,000 rows).
    public func levels(
        from: Date? = nil, to: Date? = nil, session: Int64? = nil, after: TimeCursor? = nil, limit: Int? = nil
    ) throws(StoreError) -> Page<LevelMinuteRecord> {
        var query = TimeOrderedQuery(timeColumn: "startedAt")
        if let session { query.add("sessionId = ?", [session]) }
        query.addRange(from: from, to: to)
        query.addCursor(after, order: .ascending)
        let pageLimit = limit.map { max($0, 1) }
        return try read { db in
            try query.page(db, table: "levelMinute", order: .ascending, limit: pageLimit) { (level: LevelMinuteRecord) in
                TimeCursor(time: level.startedAt, id: level.id!)
            }
        }
    }
}
