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
public enum RevisionHasher {
    /// First line of the serialisation.
    public static let formatTag = "footstepd.revision.v1"

    /// The text hashed for a revision.
    public static func text(
        eventId: Int64, revisedAt: Date, previousType: FootstepType, type: FootstepType, confidence: Double,
        reason: String, previousHash: String
    ) -> String {
        [
            formatTag, "eventId=\(eventId)", "revisedAt=\(StoredDate.text(revisedAt))",
            "previousType=\(previousType.rawValue)", "type=\(type.rawValue)",
            "confidence=\(EventHasher.render(confidence.databaseValue))", "previousHash=\(previousHash)",
            "reason=\(reason.utf8.count):\(reason)",
        ].joined(separator: "\n")
    }

    /// The text hashed for a stored revision.
    public static func text(of revision: TypeRevisionRecord) -> String {
        text(
            eventId: revision.eventId, revisedAt: revision.revisedAt, previousType: revision.previousType,
            type: revision.type, confidence: revision.confidence, reason: revision.reason,
            previousHash: revision.previousHash)
    }

    /// The hash `revision` should have, from its fields.
    public static func hash(of revision: TypeRevisionRecord) -> String {
        EventHasher.hexString(SHA256.hash(data: Data(text(of: revision).utf8)))
    }
}
