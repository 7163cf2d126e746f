import Foundation

/// A diary entry in an export, with the hash it had in its database.
public struct DiaryEntryExport: Codable, Sendable, Hashable {
    public var kind: DiaryEntryRecord.Kind
    /// When what it describes happened (ISO-8601 UTC, milliseconds).
    public var at: String
    public var duration: Double?
    public var text: String
    /// When it was written (ISO-8601 UTC, milliseconds).
    public var writtenAt: String
    public var previousHash: String
    public var hash: String
    /// A mark's clip as stored (not hashed; the file has its own SHA-256).
    public var clipPath: String?
    public var clipSha256: String?

    /// The export form of a stored entry.
    public init(_ entry: DiaryEntryRecord) {
        kind = entry.kind
        at = ExportDate.iso(entry.at)
        duration = entry.duration
        text = entry.text
        writtenAt = ExportDate.iso(entry.writtenAt)
        previousHash = entry.previousHash
        hash = entry.hash
        clipPath = entry.clipPath
        clipSha256 = entry.clipSha256
    }

    /// Whether its fields still give its hash (false: edited after export, or dates unreadable).
    public var hashMatches: Bool {
        guard let at = ExportDate.date(fromISO: at), let writtenAt = ExportDate.date(fromISO: writtenAt) else { return false }
        return DiaryHasher.hash(
            kind: kind, at: at, duration: duration, text: text, writtenAt: writtenAt, previousHash: previousHash) == hash
    }
}

extension FootstepDatabase {
    /// Adds exported diary entries to this database's diary, oldest written
    /// first, skipping those it already holds (same kind, times and text).
    /// They join this database's chain (new links); their text, times and the
    /// time they were written stay as they were.
    ///
    /// - Returns: The number of entries added.
    /// - Throws: ``ImportError/diaryAltered(source:entries:)`` before writing
    ///   anything when an entry no longer matches its hash.
    @discardableResult
    public func importDiary(_ entries: [DiaryEntryExport], source: String) throws(ImportError) -> Int {
        let altered = entries.filter { !$0.hashMatches }
        guard altered.isEmpty else { throw .diaryAltered(source: source, entries: altered.map(\.at)) }
        do {
            let existing = Set(try diaryEntries().map { DiaryEntryExport($0).identity })
            var added = 0
            for entry in entries.sorted(by: { ($0.writtenAt, $0.at) < ($1.writtenAt, $1.at) }) where !existing.contains(entry.identity) {
                try addDiaryEntry(
                    entry.kind, at: ExportDate.date(fromISO: entry.at)!, duration: entry.duration, text: entry.text,
                    writtenAt: ExportDate.date(fromISO: entry.writtenAt)!)
                added += 1
            }
            return added
        } catch {
            throw .store(error)
        }
    }
}

extension DiaryEntryExport {
    /// What makes two entries the same entry, whichever chain holds them.
    var identity: String { [kind.rawValue, at, duration.map { "\($0)" } ?? "", writtenAt, text].joined(separator: "\u{1F}") }
}
