import Crypto
import Foundation

/// The canonical serialisation and SHA-256 of a diary entry: the definition of
/// the diary's hash chain (separate from the events', same principles).
///
/// UTF-8, lines separated by `\n`, no trailing newline:
///
/// ```
/// footstepd.diary.v1
/// kind=note
/// at=2026-11-23 23:40:00.000          (UTC, StoredDate)
/// duration=4072c00000000000           (binary64 bits, big-endian hex; or: null)
/// writtenAt=2026-11-24 07:12:31.512
/// previousHash=<64 lower-case hex digits>
/// text=23:<the 23 UTF-8 bytes of the text>
/// ```
///
/// The text comes last with its length in bytes, so no text can imitate
/// another field. `previousHash` is the hash of the entry written before it
/// (id order), or 64 zeros for the first.
public enum DiaryHasher {
    /// The text hashed for an entry.
    public static func text(
        kind: DiaryEntryRecord.Kind, at: Date, duration: Double?, text: String, writtenAt: Date, previousHash: String
    ) -> String {
        let durationText = duration.map { String(format: "%016llx", $0.bitPattern) } ?? "null"
        return [
            "footstepd.diary.v1", "kind=\(kind.rawValue)", "at=\(StoredDate.text(at))", "duration=\(durationText)",
            "writtenAt=\(StoredDate.text(writtenAt))", "previousHash=\(previousHash)", "text=\(text.utf8.count):\(text)",
        ].joined(separator: "\n")
    }

    /// The lower-case hex SHA-256 of `text(...)`.
    public static func hash(
        kind: DiaryEntryRecord.Kind, at: Date, duration: Double?, text: String, writtenAt: Date, previousHash: String
    ) -> String {
        let digest = SHA256.hash(data: Data(Self.text(
            kind: kind, at: at, duration: duration, text: text, writtenAt: writtenAt, previousHash: previousHash).utf8))
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// The hash `entry` should have, from its stored fields.
    public static func hash(of entry: DiaryEntryRecord) -> String {
        hash(
            kind: entry.kind, at: entry.at, duration: entry.duration, text: entry.text, writtenAt: entry.writtenAt,
            previousHash: entry.previousHash)
    }
}
