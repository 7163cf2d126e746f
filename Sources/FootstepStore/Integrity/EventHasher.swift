import Crypto
import FootstepCore
import Foundation
import GRDB

/// The canonical serialisation and SHA-256 of an event: the definition of the hash chain.
///
/// The hashed text is UTF-8, lines separated by a single `\n`, no trailing newline:
///
/// ```
/// footstepd.event.v1
/// sessionId=12
/// audioFileId=40            (or: null)
/// frameOffset=5761234
/// timestamp=2025-03-01 22:14:05.123   (UTC, rounded to the nearest ms, see StoredDate)
/// duration=3fb999999999999a
/// kind=footstep
/// type=heel_strike
/// confidence=3fe999999999999a
/// intensity=high
/// laMax=40491ccccccccccd
/// lcMax=null
/// peakDBFS=c03a000000000000
/// sel=4045800000000000
/// backgroundLA=null
/// previousHash=<64 lower-case hex digits>
/// ```
///
/// Each value is rendered from exactly what SQLite stores, so anyone can recompute it
/// from the database with any SQLite client:
/// - INTEGER: decimal (`-` sign if negative);
/// - REAL: the 16 lower-case hex digits of its IEEE-754 binary64 bit pattern, big-endian
///   (Python: `struct.pack('>d', x).hex()`); unambiguous, no float formatting rules;
/// - TEXT: the text itself (timestamps are GRDB's UTC `yyyy-MM-dd HH:mm:ss.SSS`,
///   enums their raw value, e.g. `heel_strike`);
/// - NULL: `null`; BLOB (never written by footstepd): `x'` + hex + `'`.
///
/// The event's `hash` is the lower-case hex SHA-256 of that text. `previousHash` is the
/// `hash` of the event appended before it, over all sessions in id order (one global
/// chain), or 64 zeros (``genesisHash``) for the first event. Not hashed: `id` (order is
/// fixed by the chain links), `notes`, `boutId`, `clipPath`, `clipSha256` (annotations
/// added later; the clip file has its own SHA-256).
public enum EventHasher {
    /// The `previousHash` of the very first event.
    public static let genesisHash = String(repeating: "0", count: 64)

    /// First line of the serialisation; changes if the format ever changes.
    public static let formatTag = "footstepd.event.v1"

    /// The hashed columns of table `event`, in serialisation order.
    public static let hashedColumns: [String] = [
        "sessionId", "audioFileId", "frameOffset", "timestamp", "duration", "kind", "type",
        "confidence", "intensity", "laMax", "lcMax", "peakDBFS", "sel", "backgroundLA",
    ]

    /// The canonical text for values given in ``hashedColumns`` order.
    public static func serialisation(values: [DatabaseValue], previousHash: String) -> String {
        precondition(values.count == hashedColumns.count, "one value per hashed column")
        var text = formatTag
        text.reserveCapacity(512)
        for index in hashedColumns.indices {
            text += "\n"
            text += hashedColumns[index]
            text += "="
            text += render(values[index])
        }
        text += "\npreviousHash="
        text += previousHash
        return text
    }

    /// SHA-256 (lower-case hex) of the serialisation of `values` and `previousHash`.
    public static func hash(values: [DatabaseValue], previousHash: String) -> String {
        let text = serialisation(values: values, previousHash: previousHash)
        return hexString(SHA256.hash(data: Data(text.utf8)))
    }

    /// The hashed values of a new event, as they will be stored.
    static func values(of event: NewEvent) -> [DatabaseValue] {
        [
            event.sessionId.databaseValue,
            event.audioFileId.databaseValue,
            event.frameOffset.databaseValue,
            StoredDate.text(event.timestamp).databaseValue,
            event.duration.databaseValue,
            event.kind.rawValue.databaseValue,
            event.type.rawValue.databaseValue,
            event.confidence.databaseValue,
            event.intensity.rawValue.databaseValue,
            event.laMax.databaseValue,
            event.lcMax.databaseValue,
            event.peakDBFS.databaseValue,
            event.sel.databaseValue,
            event.backgroundLA.databaseValue,
        ]
    }

    /// Renders one stored value canonically (see the type documentation).
    public static func render(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null:
            return "null"
        case let .int64(int):
            return String(int)
        case let .double(double):
            let hex = String(double.bitPattern, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        case let .string(string):
            return string
        case let .blob(data):
            return "x'" + hexString(data) + "'"
        }
    }

    /// Lower-case hex of any byte sequence.
    static func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(hexDigit(byte >> 4))
            out.append(hexDigit(byte & 0x0f))
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 48 + nibble : 87 + nibble
    }

    /// Hex of a SHA-256 digest.
    static func hexString(_ digest: SHA256.Digest) -> String {
        digest.withUnsafeBytes { hexString($0) }
    }
}
