import FootstepCore
import Foundation
import GRDB

/// One detected impact, as stored (table `event`).
///
/// The evidence fields (`sessionId` to `timestamp` and the ``measurements``) are covered by
/// `hash`, which also covers `previousHash`, the hash of the event appended before it
/// (see ``EventHasher``). `notes`, `boutId`, `clipPath` and `clipSha256` are
/// annotations added later and are deliberately outside the hash, so editing a note or
/// attaching a clip never breaks the chain. `revisedKind`, `revisedType`,
/// `revisedConfidence` and `revisionHash` repeat the event's latest
/// ``TypeRevisionRecord``, which is hashed onto the event (``currentKind`` and
/// ``currentType`` are what reports and exports show), and `reviewVerdict` its latest
/// review's verdict (nil: nobody reviewed it). Create events with
/// ``FootstepDatabase/appendEvents(_:)``; never insert this record directly.
@dynamicMemberLookup
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
    /// The label and levels as stored live (read as `event.laMax`, `event.type`, …;
    /// one column each). `kind`, `type` and `confidence` are the live ones: see
    /// ``currentKind`` and ``currentType``.
    public var measurements: EventMeasurements
    /// User notes (outside the hash).
    public var notes: String
    /// The gait bout the step belongs to (outside the hash: bouts are found after the steps).
    public var boutId: Int64?
    /// Path of the extracted audio clip (outside the hash), as stored: relative to the
    /// state directory; open it through ``FootstepDatabase/resolve(_:)``.
    public var clipPath: String?
    /// Lower-case hex SHA-256 of the clip file (outside the hash; verified against the file).
    public var clipSha256: String?
    /// The kind of the latest revision (outside the hash; the revision is hashed), nil if never revised.
    public var revisedKind: EventKind?
    /// The type of the latest revision (outside the hash; the revision is hashed), nil if never revised.
    public var revisedType: FootstepType?
    /// The confidence of the latest revision, nil if never revised.
    public var revisedConfidence: Double?
    /// The hash of the latest revision, nil if never revised.
    public var revisionHash: String?
    /// The verdict of the latest review (outside the hash; the review is a hashed revision), nil if never reviewed.
    public var reviewVerdict: ReviewVerdict?
    /// Lower-case hex SHA-256 of the canonical serialisation of this event plus `previousHash`.
    public var hash: String
    /// `hash` of the event appended before this one (64 zeros for the first event ever).
    public var previousHash: String
}

extension EventRecord {
    /// A measured field (`event.laMax`, `event.type`, …).
    public subscript<Value>(dynamicMember field: WritableKeyPath<EventMeasurements, Value>) -> Value {
        get { measurements[keyPath: field] }
        set { measurements[keyPath: field] = newValue }
    }

    private enum CodingKeys: String, CodingKey {
        case id, sessionId, audioFileId, frameOffset, timestamp, notes, boutId, clipPath, clipSha256
        case revisedKind, revisedType, revisedConfidence, revisionHash, reviewVerdict, hash, previousHash
    }

    /// Reads a row (or any flat container): the measurements' columns sit beside the others.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        sessionId = try container.decode(Int64.self, forKey: .sessionId)
        audioFileId = try container.decodeIfPresent(Int64.self, forKey: .audioFileId)
        frameOffset = try container.decode(Int64.self, forKey: .frameOffset)
        timestamp = try container.decode(Date.self, forKey: .timestamp)
        measurements = try EventMeasurements(from: decoder)
        notes = try container.decode(String.self, forKey: .notes)
        boutId = try container.decodeIfPresent(Int64.self, forKey: .boutId)
        clipPath = try container.decodeIfPresent(String.self, forKey: .clipPath)
        clipSha256 = try container.decodeIfPresent(String.self, forKey: .clipSha256)
        revisedKind = try container.decodeIfPresent(EventKind.self, forKey: .revisedKind)
        revisedType = try container.decodeIfPresent(FootstepType.self, forKey: .revisedType)
        revisedConfidence = try container.decodeIfPresent(Double.self, forKey: .revisedConfidence)
        revisionHash = try container.decodeIfPresent(String.self, forKey: .revisionHash)
        reviewVerdict = try container.decodeIfPresent(ReviewVerdict.self, forKey: .reviewVerdict)
        hash = try container.decode(String.self, forKey: .hash)
        previousHash = try container.decode(String.self, forKey: .previousHash)
    }

    /// Writes one flat object, the measurements' fields beside the others.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encodeIfPresent(audioFileId, forKey: .audioFileId)
        try container.encode(frameOffset, forKey: .frameOffset)
        try container.encode(timestamp, forKey: .timestamp)
        try measurements.encode(to: encoder)
        try container.encode(notes, forKey: .notes)
        try container.encodeIfPresent(boutId, forKey: .boutId)
        try container.encodeIfPresent(clipPath, forKey: .clipPath)
        try container.encodeIfPresent(clipSha256, forKey: .clipSha256)
        try container.encodeIfPresent(revisedKind, forKey: .revisedKind)
        try container.encodeIfPresent(revisedType, forKey: .revisedType)
        try container.encodeIfPresent(revisedConfidence, forKey: .revisedConfidence)
        try container.encodeIfPresent(revisionHash, forKey: .revisionHash)
        try container.encodeIfPresent(reviewVerdict, forKey: .reviewVerdict)
        try container.encode(hash, forKey: .hash)
        try container.encode(previousHash, forKey: .previousHash)
    }

    /// The kind as it stands: the latest revision's, or the stored one.
    public var currentKind: EventKind { revisedKind ?? measurements.kind }
    /// The type as it stands: the latest revision's, or the stored one.
    public var currentType: FootstepType { revisedType ?? measurements.type }
    /// The confidence of ``currentType``.
    public var currentConfidence: Double { revisedConfidence ?? measurements.confidence }
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
        public static let frameOffset = Column("frameOffset")
        public static let timestamp = Column("timestamp")
        public static let kind = Column("kind")
        public static let type = Column("type")
        public static let confidence = Column("confidence")
        public static let notes = Column("notes")
        public static let boutId = Column("boutId")
        public static let clipPath = Column("clipPath")
        public static let clipSha256 = Column("clipSha256")
        public static let revisedKind = Column("revisedKind")
        public static let revisedType = Column("revisedType")
        public static let reviewVerdict = Column("reviewVerdict")
        public static let hash = Column("hash")
        public static let previousHash = Column("previousHash")
    }
}
