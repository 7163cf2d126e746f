import FootstepCore
import Foundation
import GRDB

extension FootstepDatabase {
    /// One page of events matching `filter`, ordered by `(timestamp, id)`.
    ///
    /// Follow `nextCursor` (set it as `filter.after`) to get every matching event exactly
    /// once, even while new events are appended.
    public func events(_ filter: EventFilter = EventFilter()) throws(StoreError) -> Page<EventRecord> {
        let limit = min(max(filter.limit, 1), EventFilter.maximumLimit)
        var query = TimeOrderedQuery(timeColumn: "timestamp")
        if let sessionId = filter.sessionId { query.add("sessionId = ?", [sessionId]) }
        query.addRange(from: filter.from, to: filter.to)
        if let type = filter.type { query.add("COALESCE(revisedType, type) = ?", [type.rawValue]) }
        if let kind = filter.kind { query.add("COALESCE(revisedKind, kind) = ?", [kind.rawValue]) }
        if let minConfidence = filter.minConfidence {
            query.add("COALESCE(revisedConfidence, confidence) >= ?", [minConfidence])
        }
        switch filter.review {
        case nil: break
        case .unreviewed?: query.add("reviewVerdict IS NULL", [])
        case let state?: query.add("reviewVerdict = ?", [state.rawValue])  // the verdict of the same name
        }
        query.addCursor(filter.after, order: filter.order)
        return try read { db in
            try query.page(db, table: "event", order: filter.order, limit: limit) { (event: EventRecord) in
                TimeCursor(time: event.timestamp, id: event.id!)
            }
        }
    }

    /// One event, or nil.
    public func event(_ id: Int64) throws(StoreError) -> EventRecord? {
        try read { db in try EventRecord.fetchOne(db, id: id) }
    }

    /// Event counts per current footstep type (revised or stored) with onsets in
    /// `[from, to)`, rejected events left out; types without events are absent.
    ///
    /// - Parameter kind: Only this kind (default footsteps); nil counts all kinds.
    public func eventCountsByType(from: Date, to: Date, kind: EventKind? = .footstep) throws(StoreError)
        -> [FootstepType: Int]
    {
        var sql = """
            SELECT COALESCE(revisedType, type) AS current, COUNT(*) FROM event
            WHERE timestamp >= ? AND timestamp < ? AND reviewVerdict IS NOT 'rejected'
            """
        var arguments: StatementArguments = [StoredDate.text(from), StoredDate.text(to)]
        if let kind {
            sql += " AND COALESCE(revisedKind, kind) = ?"
            arguments += [kind.rawValue]
        }
        sql += " GROUP BY current"
        let finalSQL = sql
        let finalArguments = arguments
        return try read { db in
            var counts: [FootstepType: Int] = [:]
            for row in try Row.fetchAll(db, sql: finalSQL, arguments: finalArguments) {
                if let type = FootstepType(rawValue: row[0]) { counts[type] = row[1] }
            }
            return counts
        }
    }

    /// Footstep counts per type since local midnight of `now` in `timeZone`.
    public func eventCountsToday(timeZone: TimeZone = .current, now: Date = Date()) throws(StoreError)
        -> [FootstepType: Int]
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let start = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? now.addingTimeInterval(86_400)
        return try eventCountsByType(from: start, to: end)
    }
}
