import Foundation
import GRDB

extension FootstepDatabase {
    /// Deletes a session and everything of it (events, level minutes, bouts, gaps,
    /// audio file rows) in one transaction, keeping the hash chain verifiable.
    ///
    /// The chain is global (all sessions, id order), so removing a session's events
    /// leaves holes. For each contiguous run of removed event ids a
    /// ``ChainDeletionRecord`` tombstone is written, holding the chain value before the
    /// run and after it; ``verifyChain()`` accepts a hole only when a tombstone bridges
    /// it exactly and lists it as a recorded deletion. A row deleted any other way has
    /// no tombstone and is reported as missing. A session without events gets one
    /// tombstone too, with no events (`eventCount` 0, ids 0, both hashes the chain
    /// head's), so that every deletion stays in the audit trail.
    ///
    /// - Parameters:
    ///   - id: A session that is not `recording` or `paused`.
    ///   - reason: Kept in the tombstone for the audit trail.
    /// - Returns: The paths of the audio files and clips, for the caller to delete.
    @discardableResult
    public func deleteSession(_ id: Int64, reason: String = "session deleted by user", at deletedAt: Date = Date())
        throws(StoreError) -> SessionDeletion
    {
        var deletion = try write { db in
            let session = try Self.requireSession(db, id)
            guard !session.status.isOpen else {
                throw StoreError.sessionOpen(id: id, status: session.status)
            }
            let audioPaths = try String.fetchAll(
                db, sql: "SELECT path FROM audioFile WHERE sessionId = ? ORDER BY startedAt, id", arguments: [id])
            let clipPaths = try String.fetchAll(
                db, sql: "SELECT clipPath FROM event WHERE sessionId = ? AND clipPath IS NOT NULL ORDER BY id",
                arguments: [id])

            var tombstones: [ChainDeletionRecord] = []
            var eventCount = 0
            var runs = try Self.contiguousRuns(db, session: id)
            if runs.isEmpty {
                let head = try Self.chainHead(db).lastHash
                runs = [EventRun(firstId: 0, lastId: 0, count: 0, previousHash: head, lastHash: head)]
            }
            for run in runs {
                eventCount += run.count
                var tombstone = ChainDeletionRecord(
                    deletedAt: deletedAt, sessionId: id, sessionTitle: session.title,
                    firstEventId: run.firstId, lastEventId: run.lastId, eventCount: run.count,
                    previousHash: run.previousHash, lastHash: run.lastHash, reason: reason)
                try db.execute(
                    sql: """
                        INSERT INTO chainDeletion (deletedAt, sessionId, sessionTitle, firstEventId, lastEventId,
                          eventCount, previousHash, lastHash, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        deletedAt, id, session.title, run.firstId, run.lastId, run.count, run.previousHash,
                        run.lastHash, reason,
                    ])
                tombstone.id = db.lastInsertedRowID
                tombstones.append(tombstone)
            }
            // Its revisions leave with its events: recorded, so that verification tells them from a removal.
            try db.execute(
                sql: """
                    INSERT INTO removedRevision (revisionId, chainDeletionId)
                    SELECT typeRevision.id, ? FROM typeRevision JOIN event ON event.id = typeRevision.eventId
                    WHERE event.sessionId = ?
                    """, arguments: [tombstones.last?.id, id])
            // Events first (event.audioFileId is ON DELETE RESTRICT), then the session row,
            // which cascades to sessionGap, audioFile, levelMinute and bout.
            try db.execute(sql: "DELETE FROM event WHERE sessionId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id])
            return SessionDeletion(
                sessionId: id, audioPaths: audioPaths, clipPaths: clipPaths, eventCount: eventCount,
                chainDeletions: tombstones)
        }
        deletion.audioPaths = deletion.audioPaths.map(resolve)
        deletion.clipPaths = deletion.clipPaths.map(resolve)
        return deletion
    }

    /// A run of a session's events with no other session's event between them in id order.
    struct EventRun {
        var firstId: Int64
        var lastId: Int64
        var count: Int
        var previousHash: String
        var lastHash: String
    }

    /// Splits a session's events (id order) into runs not interleaved with other sessions' events.
    static func contiguousRuns(_ db: Database, session id: Int64) throws -> [EventRun] {
        let rows = try Row.fetchAll(
            db, sql: "SELECT id, hash, previousHash FROM event WHERE sessionId = ? ORDER BY id", arguments: [id])
        guard let first = rows.first, let last = rows.last else { return [] }
        // Other sessions' events inside the id range (usually none: sessions are sequential).
        let foreign = try Int64.fetchAll(
            db, sql: "SELECT id FROM event WHERE id > ? AND id < ? AND sessionId <> ? ORDER BY id",
            arguments: [first["id"] as Int64, last["id"] as Int64, id])
        var foreignIndex = 0
        var runs: [EventRun] = []
        for row in rows {
            let eventId: Int64 = row["id"]
            let hash = Self.chainText(row, "hash")
            var startsNewRun = runs.isEmpty
            while foreignIndex < foreign.count, foreign[foreignIndex] < eventId {
                foreignIndex += 1
                startsNewRun = true
            }
            if startsNewRun {
                runs.append(
                    EventRun(firstId: eventId, lastId: eventId, count: 1, previousHash: Self.chainText(row, "previousHash"), lastHash: hash))
            } else {
                runs[runs.count - 1].lastId = eventId
                runs[runs.count - 1].count += 1
                runs[runs.count - 1].lastHash = hash
            }
        }
        return runs
    }
}
