import Foundation
import GRDB

/// What ``FootstepDatabase/importExports(_:source:importedAt:)`` restored.
public struct ImportSummary: Sendable, Hashable, CustomStringConvertible {
    /// The restored sessions' ids (as in the export).
    public var sessionIds: [Int64]
    /// Event rows restored.
    public var events: Int
    /// Level minutes, bouts, gaps, audio file, calibration and type revision rows restored.
    public var otherRows: Int
    /// Chain bridges written for events that are not in this database (see the method).
    public var bridges: Int

    public var description: String {
        "imported \(sessionIds.count) session(s) (\(sessionIds.map(String.init).joined(separator: ", "))): "
            + "\(events) events, \(otherRows) other rows; \(bridges) chain bridge(s) for events not in this database"
    }
}

extension FootstepDatabase {
    /// Restores exported sessions exactly: same ids, same values, same hashes, in one
    /// transaction (all or nothing).
    ///
    /// Before writing, every event's hash is recomputed from its fields
    /// (``EventHasher``); an edited file is refused. The events keep their original
    /// `hash` and `previousHash`, so they still chain to events that are not imported
    /// (other sessions, or outside an exported range). Each such hole, and the junction
    /// with the chain already in this database, gets a ``ChainDeletionRecord`` with
    /// session id 0 and a reason saying the events are not in this database, so
    /// ``verifyChain()`` accepts exactly those holes and lists them; anything else that
    /// does not link is still reported. The chain head moves to the last imported event.
    ///
    /// - Parameters:
    ///   - exports: Sessions to restore (e.g. ``ExportDocument/sessions``).
    ///   - source: The file name, for messages and the bridges' reason.
    /// - Throws: ``ImportError``: ``ImportError/eventsAltered(source:eventIds:)``,
    ///   ``ImportError/sessionExists(id:title:)``, ``ImportError/rowExists(table:id:)``,
    ///   ``ImportError/chainOrder(firstEventId:lastEventIdInDatabase:)`` when the events
    ///   would not come after this database's last event.
    @discardableResult
    public func importExports(_ exports: [SessionExport], source: String, importedAt: Date = Date())
        throws(ImportError) -> ImportSummary
    {
        if let bad = exports.first(where: { $0.format != SessionExport.formatTag }) {
            throw .unsupportedFormat(source: source, format: bad.format)
        }
        let events = exports.flatMap(\.events).sorted { $0.id < $1.id }
        let altered = events.filter { !$0.hashMatches }.map(\.id)
        guard altered.isEmpty else { throw .eventsAltered(source: source, eventIds: altered) }
        let alteredRevisions = exports.flatMap(\.revisions).filter { !$0.hashMatches }.map(\.id)
        guard alteredRevisions.isEmpty else { throw .revisionsAltered(source: source, revisionIds: alteredRevisions) }

        // `write` maps every error to StoreError: keep ours aside (throwing it rolls back).
        var refusal: ImportError?
        do {
            return try write { db in
                do {
                    return try Self.restore(db, exports, events: events, source: source, importedAt: importedAt)
                } catch let error as ImportError {
                    refusal = error
                    throw error
                }
            }
        } catch {
            throw refusal ?? .store(error)
        }
    }

    private static func restore(
        _ db: Database, _ exports: [SessionExport], events: [SessionExport.Event], source: String, importedAt: Date
    ) throws -> ImportSummary {
        try checkFreeIds(db, exports)
        let head = try chainHead(db)
        if let first = events.first, first.id <= head.lastEventId {
            throw ImportError.chainOrder(firstEventId: first.id, lastEventIdInDatabase: head.lastEventId)
        }
        var otherRows = 0
        var calibrations: Set<Int64> = []
        for export in exports {
            try insert(db, export.session)
            for row in export.gaps { try insert(db, row) }
            for row in export.audioFiles { try insert(db, row) }
            for row in export.bouts { try insert(db, row) }
            for row in export.levels { try insert(db, row) }
            otherRows += export.gaps.count + export.audioFiles.count + export.bouts.count + export.levels.count
            for row in export.calibrations where calibrations.insert(row.id).inserted {
                if try exists(db, row) { continue }
                try insert(db, row)
                otherRows += 1
            }
        }
        let bridges = try insertEvents(db, events, after: head, source: source, importedAt: importedAt)
        // After their events (foreign key); the event rows already name the latest.
        let revisionHead = try lastRevisionId(db)
        for export in exports {
            for row in export.revisions { try insert(db, row) }
            otherRows += export.revisions.count
        }
        // The ids between the revisions brought in belong to revisions of the database they came from.
        try recordRevisionsElsewhere(db, after: revisionHead)
        return ImportSummary(
            sessionIds: exports.map(\.session.id), events: events.count, otherRows: otherRows, bridges: bridges)
    }

    /// Inserts the events (id order) and bridges every link to an event that is not here.
    private static func insertEvents(
        _ db: Database, _ events: [SessionExport.Event], after head: (lastEventId: Int64, lastHash: String),
        source: String, importedAt: Date
    ) throws -> Int {
        guard let last = events.last else { return 0 }
        var bridges = 0
        var previousId = head.lastEventId
        var previousHash = head.lastHash
        for (index, event) in events.enumerated() {
            // Inside the export, adjacent ids must link as they did (a break there is kept and
            // reported by verifyChain); at the junction with this database, or across ids that
            // are not in the export, the original chain continues elsewhere: bridge it.
            let adjacent = index > 0 && event.id == previousId + 1
            if event.previousHash != previousHash, !adjacent {
                let first = previousId + 1
                let lastMissing = event.id - 1
                try db.execute(
                    sql: """
                        INSERT INTO chainDeletion (deletedAt, sessionId, sessionTitle, firstEventId, lastEventId,
                          eventCount, previousHash, lastHash, reason) VALUES (?, 0, '', ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        StoredDate.text(importedAt), first, lastMissing, max(0, lastMissing - first + 1), previousHash,
                        event.previousHash,
                        "not in this database: the chain continues in the database \(source) was exported from "
                            + "(imported \(ExportDate.iso(importedAt)))",
                    ])
                bridges += 1
            }
            try insert(db, event)
            previousId = event.id
            previousHash = event.hash
        }
        try db.execute(
            sql: "UPDATE chainHead SET lastEventId = ?, lastHash = ? WHERE id = 1", arguments: [last.id, last.hash])
        return bridges
    }

    /// Refuses ids already present (an exact import keeps every id).
    private static func checkFreeIds(_ db: Database, _ exports: [SessionExport]) throws {
        for export in exports {
            if let title = try String.fetchOne(
                db, sql: "SELECT title FROM session WHERE id = ?", arguments: [export.session.id])
            {
                throw ImportError.sessionExists(id: export.session.id, title: title)
            }
            try checkFree(db, export.gaps)
            try checkFree(db, export.audioFiles)
            try checkFree(db, export.bouts)
            try checkFree(db, export.levels)
            try checkFree(db, export.events)
            try checkFree(db, export.revisions)
        }
    }

    private static func checkFree<R: ExportedRow>(_ db: Database, _ rows: [R]) throws {
        guard !rows.isEmpty else { return }
        let ids = rows.map(\.id)
        // Chunks keep the statement under SQLite's variable limit.
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            let sql = "SELECT MIN(id) FROM \(R.table) WHERE id IN (\(chunk.map { _ in "?" }.joined(separator: ",")))"
            if let taken = try Int64.fetchOne(db, sql: sql, arguments: StatementArguments(chunk)) {
                throw ImportError.rowExists(table: R.table, id: taken)
            }
        }
    }

    /// Whether an identical row (same id, same values) is already there.
    private static func exists<R: ExportedRow>(_ db: Database, _ row: R) throws -> Bool {
        let condition = R.columns.map { "\($0) IS ?" }.joined(separator: " AND ")
        if try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM \(R.table) WHERE \(condition)",
            arguments: StatementArguments(row.databaseValues))! > 0
        {
            return true
        }
        if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(R.table) WHERE id = ?", arguments: [row.id])! > 0 {
            throw ImportError.rowExists(table: R.table, id: row.id)
        }
        return false
    }

    private static func insert<R: ExportedRow>(_ db: Database, _ row: R) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO \(R.table) (\(R.columns.joined(separator: ", "))) "
                + "VALUES (\(R.columns.map { _ in "?" }.joined(separator: ", ")))")
        try statement.execute(arguments: StatementArguments(row.databaseValues))
    }
}
