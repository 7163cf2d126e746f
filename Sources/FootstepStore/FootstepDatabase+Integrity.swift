import Foundation
import GRDB

extension FootstepDatabase {
    /// Recomputes every event hash in id order and checks every link (see ``EventHasher``
    /// for the serialisation, ``deleteSession(_:reason:at:)`` for recorded deletions).
    ///
    /// Reads one consistent snapshot; concurrent appends are not blocked. Each problem is
    /// reported once and localised: a changed field names that row (``ChainReport/AlteredEvent``);
    /// a deleted row names the surviving ids around it (``ChainReport/ChainBreak``); a cut-off
    /// tail is found through the chain head.
    ///
    /// - Note: Without a secret key, someone who rewrites the whole chain from a point on
    ///   (and the chain head) cannot be detected from the database alone; compare
    ///   ``ChainReport/headHash`` with a copy published earlier (report, journal).
    public func verifyChain() throws(StoreError) -> ChainReport {
        try read { db in
            let deletions = try ChainDeletionRecord.order(Column("id")).fetchAll(db)
            let bridges = Dictionary(grouping: deletions, by: \.previousHash)
            let head = try Self.chainHead(db)

            var report = ChainReport(
                checkedEvents: 0, alteredEvents: [], breaks: [], recordedDeletions: deletions,
                headHash: head.lastHash, headEventId: head.lastEventId)
            var expected = EventHasher.genesisHash
            var previousId: Int64?
            let columns = (["id"] + EventHasher.hashedColumns + ["hash", "previousHash"]).joined(separator: ", ")
            let rows = try Row.fetchCursor(db, sql: "SELECT \(columns) FROM event ORDER BY id")
            let valueCount = EventHasher.hashedColumns.count
            while let row = try rows.next() {
                let id: Int64 = row[0]
                var values: [DatabaseValue] = []
                values.reserveCapacity(valueCount)
                for index in 1...valueCount { values.append(row[index]) }
                let storedHash = Self.chainText(row, "hash")
                let storedPrevious = Self.chainText(row, "previousHash")
                report.checkedEvents += 1

                let computed = EventHasher.hash(values: values, previousHash: storedPrevious)
                if computed != storedHash {
                    report.alteredEvents.append(
                        .init(eventId: id, sessionId: Int64.fromDatabaseValue(values[0]), storedHash: storedHash,
                              computedHash: computed))
                }
                if storedPrevious != expected, !Self.isBridged(from: expected, to: storedPrevious, by: bridges) {
                    let kind: ChainReport.ChainBreak.Kind
                    if let previousId, id - previousId == 1 { kind = .linkRewritten } else { kind = .eventsMissing }
                    report.breaks.append(
                        .init(kind: kind, afterEventId: previousId, beforeEventId: id,
                              expectedPreviousHash: expected, foundPreviousHash: storedPrevious))
                }
                expected = storedHash
                previousId = id
            }
            if head.lastHash != expected, !Self.isBridged(from: expected, to: head.lastHash, by: bridges) {
                report.breaks.append(
                    .init(kind: .tailMissing, afterEventId: previousId, beforeEventId: head.lastEventId,
                          expectedPreviousHash: head.lastHash, foundPreviousHash: expected))
            }
            return report
        }
    }

    /// Closed audio files still on disk (not pruned) with their recorded SHA-256, in time order.
    public func audioFileChecksums() throws(StoreError) -> [FileChecksum] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, sessionId, path, sha256, bytes FROM audioFile
                    WHERE sha256 IS NOT NULL AND prunedAt IS NULL ORDER BY startedAt, id
                    """
            ).map { row in
                FileChecksum(
                    kind: .audio, ownerId: row["id"], sessionId: row["sessionId"], path: row["path"],
                    sha256: row["sha256"], bytes: row["bytes"])
            }
        }
    }

    /// Event clips with their recorded SHA-256, in event id order.
    public func clipChecksums() throws(StoreError) -> [FileChecksum] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, sessionId, clipPath, clipSha256 FROM event
                    WHERE clipPath IS NOT NULL AND clipSha256 IS NOT NULL ORDER BY id
                    """
            ).map { row in
                FileChecksum(
                    kind: .clip, ownerId: row["id"], sessionId: row["sessionId"], path: row["clipPath"],
                    sha256: row["clipSha256"], bytes: nil)
            }
        }
    }

    /// Clips of diary marks with their recorded SHA-256, in entry id order.
    public func markClipChecksums() throws(StoreError) -> [FileChecksum] {
        try read { db in
            guard try db.columns(in: "diaryEntry").contains(where: { $0.name == "clipPath" }) else { return [] }
            return try DiaryEntryRecord
                .filter(DiaryEntryRecord.Columns.clipPath != nil && Column("clipSha256") != nil)
                .order(Column("id"))
                .fetchAll(db)
                .map { FileChecksum(kind: .markClip, ownerId: $0.id!, sessionId: 0, path: $0.clipPath!, sha256: $0.clipSha256!) }
        }
    }

    // MARK: Helpers

    /// Whether recorded deletions lead from chain value `start` to `target`.
    static func isBridged(from start: String, to target: String, by bridges: [String: [ChainDeletionRecord]]) -> Bool {
        var frontier = [start]
        var seen: Set<String> = [start]
        while let value = frontier.popLast() {
            for deletion in bridges[value] ?? [] {
                if deletion.lastHash == target { return true }
                if seen.insert(deletion.lastHash).inserted { frontier.append(deletion.lastHash) }
            }
        }
        return false
    }

    /// A chain column as text whatever its storage class (tampered rows must not crash verification).
    static func chainText(_ row: Row, _ column: String) -> String {
        let value: DatabaseValue = row[column]
        if case let .string(text) = value.storage { return text }
        return EventHasher.render(value)
    }
}
