import Foundation
import GRDB

extension FootstepDatabase {
    /// The id of a session's event with its onset at session frame `frameOffset`, if any.
    public func eventId(session sessionId: Int64, frameOffset: Int64) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT id FROM event WHERE sessionId = ? AND frameOffset = ? ORDER BY id LIMIT 1",
                arguments: [sessionId, frameOffset])
        }
    }

    /// A session's events that have no clip recorded, in id order (to cut their
    /// clips from the rolling files after a crash).
    public func eventsWithoutClip(session sessionId: Int64) throws(StoreError) -> [EventRecord] {
        try read { db in
            try EventRecord
                .filter(EventRecord.Columns.sessionId == sessionId && EventRecord.Columns.clipPath == nil)
                .order(EventRecord.Columns.id)
                .fetchAll(db)
        }
    }

    /// Events by id (in id order), e.g. to publish freshly appended events.
    public func events(ids: [Int64]) throws(StoreError) -> [EventRecord] {
        if ids.isEmpty { return [] }
        return try read { db in
            try EventRecord.filter(keys: ids).order(EventRecord.Columns.id).fetchAll(db)
        }
    }
}
