import Foundation
import GRDB

extension FootstepDatabase {
    /// Stores a gait bout and links its steps to it (`event.boutId`, outside the hash).
    ///
    /// - Parameters:
    ///   - bout: The bout (its `id` is ignored); its session must be open.
    ///   - eventIds: The steps; each must belong to the same session.
    /// - Returns: The inserted bout with its id.
    @discardableResult
    public func appendBout(_ bout: BoutRecord, eventIds: [Int64] = []) throws(StoreError) -> BoutRecord {
        guard bout.endedAt >= bout.startedAt, bout.steps >= 0, bout.cadence.isFinite else {
            throw .invalidValue("bout at \(bout.startedAt): end before start, negative steps or non-finite cadence")
        }
        var bout = bout
        bout.id = nil
        return try write { db in
            try Self.openSession(db, bout.sessionId)
            try bout.insert(db)
            let statement = try db.cachedStatement(sql: "UPDATE event SET boutId = ? WHERE id = ? AND sessionId = ?")
            for eventId in eventIds {
                try statement.execute(arguments: [bout.id, eventId, bout.sessionId])
                if db.changesCount == 0 {
                    throw StoreError.invalidValue("event \(eventId) does not exist in session \(bout.sessionId)")
                }
            }
            return bout
        }
    }

    /// Bouts starting in `[from, to)`, ordered by `(startedAt, id)`.
    ///
    /// - Parameters:
    ///   - session: Only this session.
    ///   - after: Continue after this cursor.
    ///   - limit: Page size; nil returns everything in the range.
    public func bouts(
        from: Date? = nil, to: Date? = nil, session: Int64? = nil, after: TimeCursor? = nil, limit: Int? = nil
    ) throws(StoreError) -> Page<BoutRecord> {
        var query = TimeOrderedQuery(timeColumn: "startedAt")
        if let session { query.add("sessionId = ?", [session]) }
        query.addRange(from: from, to: to)
        query.addCursor(after, order: .ascending)
        let pageLimit = limit.map { max($0, 1) }
        return try read { db in
            try query.page(db, table: "bout", order: .ascending, limit: pageLimit) { (bout: BoutRecord) in
                TimeCursor(time: bout.startedAt, id: bout.id!)
            }
        }
    }
}
