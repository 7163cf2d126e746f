import Foundation
import GRDB

extension FootstepDatabase {
    /// Everything of one session, for `footstepctl export --session`.
    ///
    /// Reads one consistent snapshot (the daemon may keep recording). Rows are in id
    /// order and values exactly as stored, so exporting the result of an import gives
    /// the same bytes again.
    ///
    /// - Parameters:
    ///   - appVersion: Written into the export.
    ///   - exportedAt: Written into the export (pass a fixed time for reproducible files).
    /// - Throws: ``StoreError/sessionNotFound(_:)``; ``StoreError/invalidValue(_:)`` naming
    ///   the row if a stored value has the wrong type (a tampered database).
    public func exportSession(_ id: Int64, appVersion: String, exportedAt: Date = Date()) throws(StoreError)
        -> SessionExport
    {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM session WHERE id = ?", arguments: [id]) else {
                throw StoreError.sessionNotFound(id)
            }
            return try Self.export(db, session: row, range: nil, appVersion: appVersion, exportedAt: exportedAt)
        }.locatingFiles(in: self)
    }

    /// The sessions overlapping `[from, to)`, each with only its rows in the range, for
    /// `footstepctl export --from --to` and bundles.
    ///
    /// A session's events, levels and gaps are included when they start in the range
    /// (gaps and audio files when they overlap it); bouts and audio files referenced by an
    /// included event are always included so the export imports on its own.
    public func exportRange(from: Date, to: Date, appVersion: String, exportedAt: Date = Date()) throws(StoreError)
        -> RangeExport
    {
        guard from < to else { throw .invalidValue("the export range must end after it starts") }
        let range = SessionExport.ExportRange(from: ExportDate.iso(from), to: ExportDate.iso(to))
        let sessions = try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM session WHERE startedAt < ? AND (endedAt IS NULL OR endedAt >= ?)
                    ORDER BY startedAt, id
                    """,
                arguments: [StoredDate.text(to), StoredDate.text(from)])
            return try rows.map {
                try Self.export(db, session: $0, range: range, appVersion: appVersion, exportedAt: exportedAt)
            }
        }
        let located = sessions.map { $0.locatingFiles(in: self) }
        let diary = try diaryEntries(from: from, to: to).map { entry in
            var export = DiaryEntryExport(entry)
            export.clipPath = export.clipPath.map(resolve)
            return export
        }
        return RangeExport(
            appVersion: appVersion, exportedAt: ExportDate.iso(exportedAt), range: range, sessions: located, diary: diary)
    }

    // MARK: - Reading rows

    private static func export(
        _ db: Database, session row: Row, range: SessionExport.ExportRange?, appVersion: String, exportedAt: Date
    ) throws -> SessionExport {
        let session = try SessionExport.Session(row: row)
        let id = session.id
        let bounds: (from: String, to: String)? = range.map {
            (ExportDate.stored(fromISO: $0.from), ExportDate.stored(fromISO: $0.to))
        }

        // "column >= from AND column < to" for range exports, nothing for whole sessions.
        func inRange(_ column: String) -> (String, StatementArguments) {
            guard let bounds else { return ("", []) }
            return (" AND \(column) >= ? AND \(column) < ?", [bounds.from, bounds.to])
        }
        func fetch<R: ExportedRow>(_ type: R.Type, _ condition: String, _ arguments: StatementArguments) throws -> [R] {
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM \(R.table) WHERE sessionId = ?\(condition) ORDER BY id",
                arguments: [id] + arguments)
            return try rows.map { (row) throws(StoreError) in try R(row: row) }
        }

        let (eventCondition, eventArguments) = inRange("timestamp")
        let events = try fetch(SessionExport.Event.self, eventCondition, eventArguments)
        let revisions = try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM typeRevision WHERE eventId IN (SELECT id FROM event WHERE sessionId = ?\(eventCondition))
                ORDER BY id
                """,
            arguments: [id] + eventArguments
        ).map { (row) throws(StoreError) in try SessionExport.Revision(row: row) }
        let (levelCondition, levelArguments) = inRange("startedAt")
        let levels = try fetch(SessionExport.LevelMinute.self, levelCondition, levelArguments)

        var gaps = try fetch(SessionExport.Gap.self, "", [])
        var bouts = try fetch(SessionExport.Bout.self, "", [])
        var audioFiles = try fetch(SessionExport.AudioFile.self, "", [])
        if let bounds {
            let boutIds = Set(events.compactMap(\.boutId))
            let fileIds = Set(events.compactMap(\.audioFileId))
            let from = ExportDate.iso(fromStored: bounds.from)
            let to = ExportDate.iso(fromStored: bounds.to)
            // ISO texts of one format compare like the times they denote.
            gaps = gaps.filter { $0.startedAt < to && $0.endedAt > from }
            bouts = bouts.filter { boutIds.contains($0.id) || ($0.startedAt >= from && $0.startedAt < to) }
            audioFiles = audioFiles.filter { file in
                if fileIds.contains(file.id) { return true }
                guard let start = ExportDate.date(fromISO: file.startedAt), file.sampleRate > 0 else { return false }
                let end = start.addingTimeInterval(Double(file.frames) / Double(file.sampleRate))
                return file.startedAt < to && ExportDate.iso(end) > from
            }
        }

        var calibrationSQL = "SELECT * FROM calibration"
        var calibrationArguments: StatementArguments = []
        if let endedAt = session.endedAt {
            calibrationSQL += " WHERE measuredAt <= ?"
            calibrationArguments = [ExportDate.stored(fromISO: endedAt)]
        }
        let calibrations = try Row.fetchAll(db, sql: calibrationSQL + " ORDER BY id", arguments: calibrationArguments)
            .map { (row) throws(StoreError) in try SessionExport.Calibration(row: row) }

        return SessionExport(
            format: SessionExport.formatTag, appVersion: appVersion, exportedAt: ExportDate.iso(exportedAt), range: range,
            session: session, audioFiles: audioFiles, gaps: gaps, bouts: bouts, levels: levels,
            calibrations: calibrations, events: events, revisions: revisions)
    }
}

extension SessionExport {
    /// The export with its files' paths resolved (``FootstepDatabase/resolve(_:)``):
    /// files travel with the paths to open them, which an importing store keeps.
    func locatingFiles(in database: FootstepDatabase) -> SessionExport {
        var export = self
        for index in export.audioFiles.indices { export.audioFiles[index].path = database.resolve(export.audioFiles[index].path) }
        for index in export.events.indices { export.events[index].clipPath = export.events[index].clipPath.map(database.resolve) }
        return export
    }
}
