import Foundation
import GRDB

extension FootstepDatabase {
    /// Closed audio files still on disk (not pruned by retention), oldest first:
    /// the candidates for retention, in the order it deletes them.
    public func retainedAudioFiles() throws(StoreError) -> [AudioFileRecord] {
        try read { db in
            try AudioFileRecord
                .filter(Column("closedAt") != nil && Column("prunedAt") == nil)
                .order(AudioFileRecord.Columns.startedAt, AudioFileRecord.Columns.id)
                .fetchAll(db)
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
