import Foundation
import GRDB

/// A diary entry (table `diaryEntry`): what the person complaining noted, or
/// a mark ("now") they set, with when it happened and when it was written.
/// Entries form their own hash chain (``DiaryHasher``), like the events.
public struct DiaryEntryRecord: Codable, Sendable, Hashable, Identifiable {
    /// A note written in the diary, or a mark set with one key press.
    public enum Kind: String, Codable, Sendable, Hashable {
        case note
        case mark
    }

    /// Row id; nil until inserted.
    public var id: Int64?
    public var kind: Kind
    /// When what it describes happened (UTC).
    public var at: Date
    /// How long it lasted, seconds; nil when not said.
    public var duration: Double?
    /// What happened and its effect, in the writer's words.
    public var text: String
    /// When it was written (UTC).
    public var writtenAt: Date
    /// The hash of the entry written before it (64 zeros for the first).
    public var previousHash: String
    /// The SHA-256 of ``DiaryHasher/text(of:)``.
    public var hash: String
    /// A mark's clip: the audio from ``FootstepDatabase/markProtectionSeconds``
    /// before to as long after it, cut from the full recording (so retention may
    /// delete that) and never deleted. Nil until cut, and for notes. Not hashed
    /// (added later; the file has its own SHA-256). Stored relative to the state
    /// directory; open it through ``FootstepDatabase/resolve(_:)``.
    public var clipPath: String?
    /// Lower-case hex SHA-256 of the clip file.
    public var clipSha256: String?

    public init(
        id: Int64? = nil, kind: Kind, at: Date, duration: Double?, text: String, writtenAt: Date, previousHash: String,
        hash: String, clipPath: String? = nil, clipSha256: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.at = at
        self.duration = duration
        self.text = text
        self.writtenAt = writtenAt
        self.previousHash = previousHash
        self.hash = hash
        self.clipPath = clipPath
        self.clipSha256 = clipSha256
    }
}

extension DiaryEntryRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `diaryEntry`.
    public static let databaseTableName = "diaryEntry"

    public enum Columns {
        public static let at = Column("at")
        public static let kind = Column("kind")
        public static let clipPath = Column("clipPath")
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
