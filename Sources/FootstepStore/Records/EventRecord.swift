import FootstepCore
import Foundation
import GRDB

/// One detected impact, as stored (table `event`).
///
/// The evidence fields (everything from `sessionId` to `backgroundLA`) are covered by
/// `hash`, which also covers `previousHash`, the hash of the event appended before it
/// (see ``EventHasher``). `notes`, `boutId`, `clipPath` and `clipSha256` are
/// annotations added later and are deliberately outside the hash, so editing a note or
/// attaching a clip never breaks the chain. `revisedType`, `revisedConfidence` and
/// `revisionHash` repeat the event's latest ``TypeRevisionRecord``, which is hashed
/// onto the event (``currentType`` is what reports and exports show). Create events with
/// ``FootstepDatabase/appendEvents(_:)``; never insert this record directly.
public struct EventRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id (AUTOINCREMENT: never reused, so gaps in ids are meaningful).
    public var id: Int64?
    /// The session the event belongs to.
    public var sessionId: Int64
    /// The audio file holding the event, if audio was kept.
    public var audioFileId: Int64?
    /// Position of the onset in the session's sample clock (frames since session start).
    public var frameOffset: Int64
    /// Onset time (UTC), stored with millisecond precision.
    public var timestamp: Date
    /// Duration of the impact in seconds.
    public var duration: Double
    /// Footstep or other impact noise.
    public var kind: EventKind
    /// Footstep type (`unknown` below 0.5 confidence or for `other` events).
    public var type: FootstepType
    /// Classifier confidence, 0…1.
    public var confidence: Double
    /// Loudness relative to the background.
    public var intensity: Intensity
    /// Maximum A-weighted fast level, dB(A) (calibrated).
    public var laMax: Double
    /// Maximum C-weighted fast level, dB(C), if measured.
    public var lcMax: Double?
    /// Sample peak, dBFS.
    public var peakDBFS: Double
    /// Sound exposure level of the event, dB(A).
    public var sel: Double
    /// Background level just before the event, dB(A), if known: the detector's
    /// floor-tracking Fast A level (it follows drops at once and rises over
    /// seconds, so an event does not raise it).
    public var backgroundLA: Double?
    /// User notes (outside the hash).
    public var notes: String
    /// The gait bout the step belongs to (outside the hash: bouts are found after the steps).
    public var boutId: Int64?
    /// Path of the extracted audio clip (outside the hash), as stored: relative to the
    /// state directory; open it through ``FootstepDatabase/resolve(_:)``.
    public var clipPath: String?
    /// Lower-case hex SHA-256 of the clip file (outside the hash; verified against the file).
    public var clipSha256: String?
    /// The type of the latest revision (outside the hash; the revision is hashed), nil if never revised.
    public var revisedType: FootstepType?
    /// The confidence of the latest revision, nil if never revised.
    public var revisedConfidence: Double?
    /// The hash of the latest revision, nil if never revised.
    public var revisionHash: String?
    /// Lower-case hex SHA-256 of the canonical serialisation of this event plus `previousHash`.
    public var hash: String
    /// `hash` of the event appended before this one (64 zeros for the first event ever).
    public var previousHash: String
}

extension EventRecord {
    /// The type as it stands: the latest revision's, or the stored one.
    public var currentType: FootstepType { revisedType ?? type }
    /// The confidence of ``currentType``.
    public var currentConfidence: Double { revisedConfidence ?? confidence }
}

// Deliberately not PersistableRecord: events enter only through appendEvents, which
// keeps the hash chain; the type system forbids inserting or updating one directly.
extension EventRecord: FetchableRecord, TableRecord {
    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `event`.
    public static let databaseTableName = "event"

    /// Column names.
    public enum Columns {
        public static let id = Column("id")
        public static let sessionId = Column("sessionId")
        public static let audioFileId = Column("audioFileId")
        public static let timestamp = Column("timestamp")
        public static let kind = Column("kind")
        public static let type = Column("type")
        public static let confidence = Column("confidence")
        public static let notes = Column("notes")
        public static let boutId = Column("boutId")
        public static let clipPath = Column("clipPath")
        public static let clipSha256 = Column("clipSha256")
        public static let revisedType = Column("revisedType")
        public static let hash = Column("hash")
        public static let previousHash = Column("previousHash")
    }
}
