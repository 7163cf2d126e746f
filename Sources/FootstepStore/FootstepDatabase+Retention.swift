import Foundation
import GRDB

extension FootstepDatabase {
    /// A mark keeps the audio from this many seconds before it to as long after
    /// it: as its own clip, and in the full files until that clip is cut.
    public static let markProtectionSeconds = 60.0

    /// Closed audio files still on disk (not pruned by retention), oldest first:
    /// the candidates for retention, in the order it deletes them. Files with
    /// audio within ``markProtectionSeconds`` of a diary mark whose clip is not
    /// cut yet are not candidates.
    public func retainedAudioFiles() throws(StoreError) -> [AudioFileRecord] {
        try read { db in
            let files = try AudioFileRecord
                .filter(Column("closedAt") != nil && Column("prunedAt") == nil)
                .order(AudioFileRecord.Columns.startedAt, AudioFileRecord.Columns.id)
                .fetchAll(db)
            guard try db.tableExists("diaryEntry") else { return files.map(resolved) }
            let marks = try Self.marksAwaitingClip(db).map(\.at)
            let reach = Self.markProtectionSeconds
            return files.filter { file in
                !marks.contains { $0 >= file.startedAt.addingTimeInterval(-reach) && $0 <= file.endsAt.addingTimeInterval(reach) }
            }.map(resolved)
        }
    }

    /// Bytes of the closed audio files still on disk.
    public func retainedAudioBytes() throws(StoreError) -> Int64 {
        try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM audioFile WHERE closedAt IS NOT NULL AND prunedAt IS NULL")
                ?? 0
        }
    }

    /// Diary marks whose clip is not cut yet, oldest first.
    public func marksAwaitingClip() throws(StoreError) -> [DiaryEntryRecord] {
        try read { db in try Self.marksAwaitingClip(db) }
    }

    private static func marksAwaitingClip(_ db: Database) throws -> [DiaryEntryRecord] {
        var request = DiaryEntryRecord.filter(DiaryEntryRecord.Columns.kind == DiaryEntryRecord.Kind.mark.rawValue)
        if try db.columns(in: "diaryEntry").contains(where: { $0.name == "clipPath" }) {
            request = request.filter(DiaryEntryRecord.Columns.clipPath == nil)
        }
        return try request.order(DiaryEntryRecord.Columns.at, Column("id")).fetchAll(db)
    }

    /// Records a mark's clip and its SHA-256 (once: a cut clip is never replaced);
    /// the path is stored relative to the state directory (``storedPath(_:)``).
    public func setMarkClip(_ entryId: Int64, path: String, sha256: String) throws(StoreError) {
        let stored = storedPath(path)
        try write { db in
            try db.execute(
                sql: "UPDATE diaryEntry SET clipPath = ?, clipSha256 = ? WHERE id = ? AND kind = 'mark' AND clipPath IS NULL",
                arguments: [stored, sha256, entryId])
            guard db.changesCount == 1 else {
                throw StoreError.invalidValue("diary entry \(entryId) is not a mark awaiting its clip")
            }
        }
    }

    /// Audio files of any session that overlap `[from, to)`, with their state
    /// (open files included), oldest first.
    public func audioFiles(overlapping from: Date, _ to: Date) throws(StoreError) -> [AudioFileRecord] {
        try read { db in
            try AudioFileRecord
                .filter(AudioFileRecord.Columns.startedAt < StoredDate.text(to))
                .order(AudioFileRecord.Columns.startedAt, AudioFileRecord.Columns.id)
                .fetchAll(db)
                .filter { $0.endsAt > from || $0.closedAt == nil }
                .map(resolved)
        }
    }
}
