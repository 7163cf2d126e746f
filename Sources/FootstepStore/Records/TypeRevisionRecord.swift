import FootstepCore
import Foundation
import GRDB

/// An event's label named again after it was stored (table `typeRevision`):
/// by the gait context once the impacts around a provisionally reported event
/// were heard (its kind can change: an `other` on the beat of a walk becomes a
/// footstep), by the bout typer once a step's whole bout was heard, or by a
/// person who listened to it: a review (``verdict`` set) confirms, rejects or
/// relabels it and names who (``reviewerUid``, ``reviewer``).
///
/// The event row keeps the type it was stored with (covered by the event's hash);
/// revisions are appended, never edited, and each is hashed (``RevisionHasher``)
/// together with the hash it follows: the event's own hash for its first revision,
/// the previous revision's for later ones. So every revision hangs off the event
/// hash chain, and the event's label history cannot be rewritten, reordered or
/// shortened in the middle without ``FootstepDatabase/verifyRevisions()`` noticing.
/// The event row's `revisedKind`, `revisedType`, `revisedConfidence` and
/// `revisionHash` repeat the latest revision for queries; verification checks
/// they agree with it.
public struct TypeRevisionRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// The revised event.
    public var eventId: Int64
    /// When the revision was made (UTC, millisecond precision).
    public var revisedAt: Date
    /// The kind the event had before (its stored kind, or the previous revision's).
    public var previousKind: EventKind
    /// The type the event had before (its stored type, or the previous revision's).
    public var previousType: FootstepType
    /// The kind it has from now on.
    public var kind: EventKind
    /// The type it has from now on (`unknown` for an `other`).
    public var type: FootstepType
    /// The confidence of the new type, 0…1.
    public var confidence: Double
    /// Who revised it and why, e.g. `bout typer: 14-step bout`; a review's own reason (may be empty).
    public var reason: String
    /// A review's verdict; nil for a revision the pipeline made.
    public var verdict: ReviewVerdict?
    /// The reviewer's uid, from the control socket's peer credentials (reviews only).
    public var reviewerUid: Int64?
    /// The reviewer's user name as the daemon's machine resolved the uid (reviews only).
    public var reviewer: String?
    /// Whether the revision changes the kind (footstep or `other`), not only the type.
    public var changesKind: Bool { kind != previousKind }
    /// The event's hash (first revision) or the previous revision's hash.
    public var previousHash: String
    /// Lower-case hex SHA-256 of ``RevisionHasher/text(of:)``.
    public var hash: String

    public init(
        id: Int64? = nil, eventId: Int64, revisedAt: Date, previousKind: EventKind = .footstep,
        previousType: FootstepType, kind: EventKind = .footstep, type: FootstepType, confidence: Double,
        reason: String, verdict: ReviewVerdict? = nil, reviewerUid: Int64? = nil, reviewer: String? = nil,
        previousHash: String, hash: String
    ) {
        self.id = id
        self.eventId = eventId
        self.revisedAt = revisedAt
        self.previousKind = previousKind
        self.previousType = previousType
        self.kind = kind
        self.type = type
        self.confidence = confidence
        self.reason = reason
        self.verdict = verdict
        self.reviewerUid = reviewerUid
        self.reviewer = reviewer
        self.previousHash = previousHash
        self.hash = hash
    }
}

extension TypeRevisionRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `typeRevision`.
    public static let databaseTableName = "typeRevision"

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
