import Crypto
import FootstepCore
import Foundation
import GRDB

/// The canonical serialisation and SHA-256 of a type revision: the definition of
/// how revisions hang off the event hash chain.
///
/// UTF-8, lines separated by `\n`, no trailing newline:
///
/// ```
/// footstepd.revision.v1
/// eventId=1234
/// revisedAt=2026-11-23 23:40:02.512   (UTC, StoredDate)
/// previousType=heel_strike
/// type=stomping
/// confidence=3fe999999999999a          (binary64 bits, big-endian hex)
/// previousHash=<64 lower-case hex digits>
/// reason=25:<the 25 UTF-8 bytes of the reason>
/// ```
///
/// `previousHash` is the revised event's `hash` for its first revision and the
/// previous revision's `hash` for each later one. The reason comes last with its
/// length in bytes, so no reason can imitate another field.
///
/// A revision between kinds (a footstep settled as `other`, or the reverse)
/// is `footstepd.revision.v2`: the same lines with `previousKind=` before
/// `previousType=` and `kind=` before `type=`. A revision from footstep to
/// footstep keeps the v1 text, so revisions stored before kinds could change
/// hash as they did.
///
/// A review is `footstepd.revision.v3`: the v2 lines, then `verdict=` and
/// `reviewerUid=` before `previousHash=`, and `reviewer=` with its length in
/// bytes before the reason.
public enum RevisionHasher {
    /// First line of the serialisation of a footstep's type revision.
    public static let formatTag = "footstepd.revision.v1"
    /// First line of the serialisation of a revision between kinds.
    public static let kindFormatTag = "footstepd.revision.v2"
    /// First line of the serialisation of a review.
    public static let reviewFormatTag = "footstepd.revision.v3"

    /// The text hashed for a revision.
    public static func text(
        eventId: Int64, revisedAt: Date, previousKind: EventKind = .footstep, previousType: FootstepType,
        kind: EventKind = .footstep, type: FootstepType, confidence: Double, reason: String,
        review: (verdict: ReviewVerdict, uid: Int64, name: String)? = nil, previousHash: String
    ) -> String {
        let typeOnly = review == nil && previousKind == .footstep && kind == .footstep
        let tag = review != nil ? reviewFormatTag : typeOnly ? formatTag : kindFormatTag
        let previous = typeOnly ? [] : ["previousKind=\(previousKind.rawValue)"]
        let current = typeOnly ? [] : ["kind=\(kind.rawValue)"]
        let verdict = review.map { ["verdict=\($0.verdict.rawValue)", "reviewerUid=\($0.uid)"] } ?? []
        let reviewer = review.map { ["reviewer=\($0.name.utf8.count):\($0.name)"] } ?? []
        return ([tag, "eventId=\(eventId)", "revisedAt=\(StoredDate.text(revisedAt))"]
            + previous + ["previousType=\(previousType.rawValue)"] + current + [
                "type=\(type.rawValue)", "confidence=\(EventHasher.render(confidence.databaseValue))",
            ] + verdict + ["previousHash=\(previousHash)"] + reviewer + ["reason=\(reason.utf8.count):\(reason)"])
            .joined(separator: "\n")
    }

    /// The text hashed for a stored revision.
    public static func text(of revision: TypeRevisionRecord) -> String {
        text(
            eventId: revision.eventId, revisedAt: revision.revisedAt, previousKind: revision.previousKind,
            previousType: revision.previousType, kind: revision.kind, type: revision.type,
            confidence: revision.confidence, reason: revision.reason,
            review: revision.verdict.map { ($0, revision.reviewerUid ?? -1, revision.reviewer ?? "") },
            previousHash: revision.previousHash)
    }

    /// The hash `revision` should have, from its fields.
    public static func hash(of revision: TypeRevisionRecord) -> String {
        EventHasher.hexString(SHA256.hash(data: Data(text(of: revision).utf8)))
    }
}
