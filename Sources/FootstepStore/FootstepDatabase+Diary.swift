import Foundation
import GRDB

/// The result of ``FootstepDatabase/verifyDiary()``.
public struct DiaryChainReport: Sendable, Hashable {
    /// Entries whose hashes were recomputed.
    public var checkedEntries: Int
    /// Entries whose stored fields do not give their stored hash (edited after writing).
    public var alteredEntryIds: [Int64]
    /// Entries whose `previousHash` is not the hash of the entry before them
    /// (an entry removed or inserted before them).
    public var brokenLinkEntryIds: [Int64]
    /// The head names a later entry than the last one left (the end was cut off).
    public var tailMissing: Bool
    /// The hash of the last entry written.
    public var headHash: String

    /// Nothing altered, removed or cut off.
    public var isIntact: Bool { alteredEntryIds.isEmpty && brokenLinkEntryIds.isEmpty && !tailMissing }
}

extension DiaryChainReport: CustomStringConvertible {
    public var description: String {
        if isIntact { return "diary intact: \(checkedEntries) entr\(checkedEntries == 1 ? "y" : "ies") verified" }
        var lines = ["diary NOT intact (\(checkedEntries) entries checked)"]
        for id in alteredEntryIds { lines.append("  diary entry \(id) was altered (its fields no longer match its hash)") }
        for id in brokenLinkEntryIds { lines.append("  diary entry \(id) does not link to the entry before it (an entry was removed or inserted)") }
        if tailMissing { lines.append("  the diary's last entries were removed (the head names a later entry)") }
        return lines.joined(separator: "\n")
    }
}

extension FootstepDatabase {
    /// Writes a diary entry at the end of the diary's chain.
    ///
    /// - Parameters:
    ///   - at: When what it describes happened.
    ///   - duration: How long it lasted (seconds), if said.
    ///   - writtenAt: When it was written (now, or the original time on import).
    /// - Returns: The stored entry with its id and hash.
    @discardableResult
    public func addDiaryEntry(
        _ kind: DiaryEntryRecord.Kind, at: Date, duration: Double? = nil, text: String, writtenAt: Date = Date()
    ) throws(StoreError) -> DiaryEntryRecord {
        if let duration, !(duration.isFinite && duration >= 0) {
            throw .invalidValue("a diary entry's duration must be a positive number of seconds, not \(duration)")
        }
        guard !text.isEmpty || kind == .mark else { throw .invalidValue("a diary note needs a text") }
        return try write { db in
            let previous = try String.fetchOne(db, sql: "SELECT lastHash FROM diaryHead WHERE id = 1") ?? EventHasher.genesisHash
            // Stored at millisecond precision: hash what will be read back.
            let at = StoredDate.date(StoredDate.text(at)) ?? at
            let writtenAt = StoredDate.date(StoredDate.text(writtenAt)) ?? writtenAt
            var entry = DiaryEntryRecord(
                kind: kind, at: at, duration: duration, text: text, writtenAt: writtenAt, previousHash: previous,
                hash: DiaryHasher.hash(
                    kind: kind, at: at, duration: duration, text: text, writtenAt: writtenAt, previousHash: previous))
            try entry.insert(db)
            try db.execute(
                sql: "UPDATE diaryHead SET lastEntryId = ?, lastHash = ? WHERE id = 1", arguments: [entry.id, entry.hash])
            return entry
        }
    }

    /// Diary entries about `[from, to)` (by `at`), oldest first; all of them without bounds.
    public func diaryEntries(from: Date? = nil, to: Date? = nil) throws(StoreError) -> [DiaryEntryRecord] {
        try read { db in
            var request = DiaryEntryRecord.order(DiaryEntryRecord.Columns.at, Column("id"))
            if let from { request = request.filter(DiaryEntryRecord.Columns.at >= StoredDate.text(from)) }
            if let to { request = request.filter(DiaryEntryRecord.Columns.at < StoredDate.text(to)) }
            return try request.fetchAll(db)
        }
    }

    /// Recomputes every diary hash in id order and checks every link and the head.
    public func verifyDiary() throws(StoreError) -> DiaryChainReport {
        try read { db in
            // A database opened read-only before its v2 migration has no diary yet.
            guard try db.tableExists("diaryEntry") else {
                return DiaryChainReport(
                    checkedEntries: 0, alteredEntryIds: [], brokenLinkEntryIds: [], tailMissing: false,
                    headHash: EventHasher.genesisHash)
            }
            let entries = try DiaryEntryRecord.order(Column("id")).fetchAll(db)
            let head = try Row.fetchOne(db, sql: "SELECT lastEntryId, lastHash FROM diaryHead WHERE id = 1")
            var report = DiaryChainReport(
                checkedEntries: entries.count, alteredEntryIds: [], brokenLinkEntryIds: [], tailMissing: false,
                headHash: head?["lastHash"] ?? EventHasher.genesisHash)
            var expected = EventHasher.genesisHash
            for entry in entries {
                if DiaryHasher.hash(of: entry) != entry.hash { report.alteredEntryIds.append(entry.id!) }
                if entry.previousHash != expected { report.brokenLinkEntryIds.append(entry.id!) }
                expected = entry.hash
            }
            let headId: Int64 = head?["lastEntryId"] ?? 0
            report.tailMissing = expected != report.headHash || (entries.last?.id ?? 0) != headId
            return report
        }
    }
}
