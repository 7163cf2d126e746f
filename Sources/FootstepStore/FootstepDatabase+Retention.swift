import Foundation
import GRDB

extension FootstepDatabase {
    /// Audio within this many seconds of a diary mark is never deleted by retention.
    public static let markProtectionSeconds = 60.0

    /// Closed audio files still on disk (not pruned by retention), oldest first:
    /// the candidates for retention, in the order it deletes them. Files with
    /// audio within ``markProtectionSeconds`` of a diary mark are not candidates.
    public func retainedAudioFiles() throws(StoreError) -> [AudioFileRecord] {
        try read { db in
            let files = try AudioFileRecord
                .filter(Column("closedAt") != nil && Column("prunedAt") == nil)
                .order(AudioFileRecord.Columns.startedAt, AudioFileRecord.Columns.id)
                .fetchAll(db)
            guard try db.tableExists("diaryEntry") else { return files }
            let marks = try DiaryEntryRecord.filter(Column("kind") == DiaryEntryRecord.Kind.mark.rawValue).fetchAll(db).map(\.at)
            let reach = Self.markProtectionSeconds
            return files.filter { file in
                !marks.contains { $0 >= file.startedAt.addingTimeInterval(-reach) && $0 <= file.endsAt.addingTimeInterval(reach) }
            }
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
}
