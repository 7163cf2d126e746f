import FootstepCore
import Foundation
import GRDB

/// Reads typed columns of one database row for an export, naming the table, row and
/// column when a stored value has the wrong type (a tampered database).
struct ExportRowReader {
    let row: Row
    let table: String

    private func fail(_ column: String, _ expected: String) -> StoreError {
        let value: DatabaseValue = row[column]
        let id: DatabaseValue = row["id"]
        return .invalidValue(
            "\(table) row \(EventHasher.render(id)): column \(column) holds \(EventHasher.render(value)), not \(expected) "
                + "(run footstepctl verify)")
    }

    func int(_ column: String) throws(StoreError) -> Int64 {
        guard let value = optionalInt(column) else { throw fail(column, "an integer") }
        return value
    }

    func optionalInt(_ column: String) -> Int64? {
        let value: DatabaseValue = row[column]
        if case let .int64(int) = value.storage { return int }
        return nil
    }

    func double(_ column: String) throws(StoreError) -> Double {
        guard let value = optionalDouble(column) else { throw fail(column, "a number") }
        return value
    }

    func optionalDouble(_ column: String) -> Double? {
        let value: DatabaseValue = row[column]
        switch value.storage {
        case let .double(double): return double
        case let .int64(int): return Double(int)
        default: return nil
        }
    }

    func text(_ column: String) throws(StoreError) -> String {
        guard let value = optionalText(column) else { throw fail(column, "text") }
        return value
    }

    func optionalText(_ column: String) -> String? {
        let value: DatabaseValue = row[column]
        if case let .string(text) = value.storage { return text }
        return nil
    }

    func date(_ column: String) throws(StoreError) -> String {
        ExportDate.iso(fromStored: try text(column))
    }

    func optionalDate(_ column: String) -> String? {
        optionalText(column).map(ExportDate.iso(fromStored:))
    }
}

/// A row of an export as the columns and values to insert, in table column order.
protocol ExportedRow {
    /// The table the row goes into.
    static var table: String { get }
    /// The columns exported, in order (the schema test checks they are all of the table's columns).
    static var columns: [String] { get }
    /// The row's id.
    var id: Int64 { get }
    /// The values to insert, one per ``columns`` entry, exactly as they were stored.
    var databaseValues: [DatabaseValue] { get }
    /// Reads a stored row.
    init(reading reader: ExportRowReader) throws(StoreError)
}

extension ExportedRow {
    /// Reads a fetched row.
    init(row: Row) throws(StoreError) {
        try self.init(reading: ExportRowReader(row: row, table: Self.table))
    }
}

/// Stored text of an optional ISO time.
private func storedDate(_ iso: String?) -> DatabaseValue {
    iso.map { ExportDate.stored(fromISO: $0).databaseValue } ?? .null
}

extension SessionExport.Session: ExportedRow {
    static let table = "session"
    static let columns = [
        "id", "startedAt", "endedAt", "status", "title", "notes", "device", "sampleRate", "channels", "timeZone",
        "endReason",
    ]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), startedAt: try r.date("startedAt"), endedAt: r.optionalDate("endedAt"),
            status: try r.text("status"), title: try r.text("title"), notes: try r.text("notes"),
            device: try r.text("device"), sampleRate: try r.int("sampleRate"), channels: try r.int("channels"),
            timeZone: try r.text("timeZone"), endReason: r.optionalText("endReason"))
    }
    var databaseValues: [DatabaseValue] {
        [
            id.databaseValue, storedDate(startedAt), storedDate(endedAt), status.databaseValue, title.databaseValue,
            notes.databaseValue, device.databaseValue, sampleRate.databaseValue, channels.databaseValue,
            timeZone.databaseValue, endReason.databaseValue,
        ]
    }
}

extension SessionExport.Gap: ExportedRow {
    static let table = "sessionGap"
    static let columns = ["id", "sessionId", "startedAt", "endedAt", "reason"]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), sessionId: try r.int("sessionId"), startedAt: try r.date("startedAt"),
            endedAt: try r.date("endedAt"), reason: try r.text("reason"))
    }
    var databaseValues: [DatabaseValue] {
        [id.databaseValue, sessionId.databaseValue, storedDate(startedAt), storedDate(endedAt), reason.databaseValue]
    }
}

extension SessionExport.AudioFile: ExportedRow {
    static let table = "audioFile"
    static let columns = [
        "id", "sessionId", "path", "startedAt", "startFrame", "frames", "sampleRate", "channels", "format", "sha256",
        "closedAt", "bytes", "prunedAt",
    ]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), sessionId: try r.int("sessionId"), path: try r.text("path"),
            startedAt: try r.date("startedAt"), startFrame: try r.int("startFrame"), frames: try r.int("frames"),
            sampleRate: try r.int("sampleRate"), channels: try r.int("channels"), format: try r.text("format"),
            sha256: r.optionalText("sha256"), closedAt: r.optionalDate("closedAt"), bytes: try r.int("bytes"),
            prunedAt: r.optionalDate("prunedAt"))
    }
    var databaseValues: [DatabaseValue] {
        [
            id.databaseValue, sessionId.databaseValue, path.databaseValue, storedDate(startedAt),
            startFrame.databaseValue, frames.databaseValue, sampleRate.databaseValue, channels.databaseValue,
            format.databaseValue, sha256.databaseValue, storedDate(closedAt), bytes.databaseValue, storedDate(prunedAt),
        ]
    }
}

extension SessionExport.Bout: ExportedRow {
    static let table = "bout"
    static let columns = ["id", "sessionId", "startedAt", "endedAt", "steps", "cadence", "dominantType", "kind"]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), sessionId: try r.int("sessionId"), startedAt: try r.date("startedAt"),
            endedAt: try r.date("endedAt"), steps: try r.int("steps"), cadence: try r.double("cadence"),
            dominantType: try r.text("dominantType"), kind: try r.text("kind"))
    }
    var databaseValues: [DatabaseValue] {
        [
            id.databaseValue, sessionId.databaseValue, storedDate(startedAt), storedDate(endedAt), steps.databaseValue,
            cadence.databaseValue, dominantType.databaseValue, kind.databaseValue,
        ]
    }
}

extension SessionExport.LevelMinute: ExportedRow {
    static let table = "levelMinute"
    static let columns = ["id", "sessionId", "startedAt", "seconds", "laeq", "lceq", "lafMax", "lafMin", "la10", "la90"]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), sessionId: try r.int("sessionId"), startedAt: try r.date("startedAt"),
            seconds: try r.double("seconds"), laeq: try r.double("laeq"), lceq: try r.double("lceq"),
            lafMax: try r.double("lafMax"), lafMin: try r.double("lafMin"), la10: try r.double("la10"),
            la90: try r.double("la90"))
    }
    var databaseValues: [DatabaseValue] {
        [
            id.databaseValue, sessionId.databaseValue, storedDate(startedAt), seconds.databaseValue, laeq.databaseValue,
            lceq.databaseValue, lafMax.databaseValue, lafMin.databaseValue, la10.databaseValue, la90.databaseValue,
        ]
    }
}

extension SessionExport.Calibration: ExportedRow {
    static let table = "calibration"
    static let columns = ["id", "measuredAt", "offsetDB", "method", "reference"]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), measuredAt: try r.date("measuredAt"), offsetDB: try r.double("offsetDB"),
            method: try r.text("method"), reference: try r.text("reference"))
    }
    var databaseValues: [DatabaseValue] {
        [id.databaseValue, storedDate(measuredAt), offsetDB.databaseValue, method.databaseValue, reference.databaseValue]
    }
}

extension SessionExport.Event: ExportedRow {
    static let table = "event"
    static let columns = ["id"] + EventHasher.hashedColumns + [
        "notes", "boutId", "clipPath", "clipSha256", "hash", "previousHash", "revisedType", "revisedConfidence",
        "revisionHash", "revisedKind", "reviewVerdict",
    ]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), sessionId: try r.int("sessionId"), audioFileId: r.optionalInt("audioFileId"),
            frameOffset: try r.int("frameOffset"), timestamp: try r.date("timestamp"), duration: try r.double("duration"),
            kind: try r.text("kind"), type: try r.text("type"), confidence: try r.double("confidence"),
            intensity: try r.text("intensity"), laMax: try r.double("laMax"), lcMax: r.optionalDouble("lcMax"),
            peakDBFS: try r.double("peakDBFS"), sel: try r.double("sel"), backgroundLA: r.optionalDouble("backgroundLA"),
            notes: try r.text("notes"), boutId: r.optionalInt("boutId"), clipPath: r.optionalText("clipPath"),
            clipSha256: r.optionalText("clipSha256"), hash: try r.text("hash"), previousHash: try r.text("previousHash"),
            revisedType: r.optionalText("revisedType"), revisedConfidence: r.optionalDouble("revisedConfidence"),
            revisionHash: r.optionalText("revisionHash"), revisedKind: r.optionalText("revisedKind"),
            reviewVerdict: r.optionalText("reviewVerdict"))
    }

    /// The hashed values in ``EventHasher/hashedColumns`` order, as stored.
    var hashedValues: [DatabaseValue] {
        [
            sessionId.databaseValue, audioFileId.databaseValue, frameOffset.databaseValue,
            storedDate(timestamp), duration.databaseValue, kind.databaseValue, type.databaseValue,
            confidence.databaseValue, intensity.databaseValue, laMax.databaseValue, lcMax.databaseValue,
            peakDBFS.databaseValue, sel.databaseValue, backgroundLA.databaseValue,
        ]
    }

    var databaseValues: [DatabaseValue] {
        [id.databaseValue] + hashedValues + [
            notes.databaseValue, boutId.databaseValue, clipPath.databaseValue, clipSha256.databaseValue,
            hash.databaseValue, previousHash.databaseValue, revisedType.databaseValue, revisedConfidence.databaseValue,
            revisionHash.databaseValue, revisedKind.databaseValue, reviewVerdict.databaseValue,
        ]
    }

    /// Whether `hash` is the SHA-256 of the event's fields and `previousHash`.
    public var hashMatches: Bool {
        EventHasher.hash(values: hashedValues, previousHash: previousHash) == hash
    }
}

extension SessionExport.Revision: ExportedRow {
    static let table = "typeRevision"
    static let columns = [
        "id", "eventId", "revisedAt", "previousType", "type", "confidence", "reason", "previousHash", "hash",
        "previousKind", "kind", "verdict", "reviewerUid", "reviewer",
    ]
    init(reading r: ExportRowReader) throws(StoreError) {
        self.init(
            id: try r.int("id"), eventId: try r.int("eventId"), revisedAt: try r.date("revisedAt"),
            previousType: try r.text("previousType"), type: try r.text("type"), confidence: try r.double("confidence"),
            reason: try r.text("reason"), previousHash: try r.text("previousHash"), hash: try r.text("hash"),
            previousKind: r.optionalText("previousKind"), kind: r.optionalText("kind"),
            verdict: r.optionalText("verdict"), reviewerUid: r.optionalInt("reviewerUid"),
            reviewer: r.optionalText("reviewer"))
    }

    var databaseValues: [DatabaseValue] {
        [
            id.databaseValue, eventId.databaseValue, storedDate(revisedAt), previousType.databaseValue,
            type.databaseValue, confidence.databaseValue, reason.databaseValue, previousHash.databaseValue,
            hash.databaseValue, (previousKind ?? EventKind.footstep.rawValue).databaseValue,
            (kind ?? EventKind.footstep.rawValue).databaseValue, verdict.databaseValue, reviewerUid.databaseValue,
            reviewer.databaseValue,
        ]
    }

    /// Whether `hash` is the SHA-256 of the revision's fields (``RevisionHasher``).
    public var hashMatches: Bool {
        guard let revisedAt = ExportDate.date(fromISO: revisedAt), let previous = FootstepType(rawValue: previousType),
            let current = FootstepType(rawValue: type),
            let previousKind = EventKind(rawValue: previousKind ?? EventKind.footstep.rawValue),
            let kind = EventKind(rawValue: kind ?? EventKind.footstep.rawValue)
        else { return false }
        var review: ReviewVerdict?
        if let verdict {
            guard let known = ReviewVerdict(rawValue: verdict) else { return false }
            review = known
        }
        let record = TypeRevisionRecord(
            eventId: eventId, revisedAt: revisedAt, previousKind: previousKind, previousType: previous, kind: kind,
            type: current, confidence: confidence, reason: reason, verdict: review, reviewerUid: reviewerUid,
            reviewer: reviewer, previousHash: previousHash, hash: hash)
        return RevisionHasher.hash(of: record) == hash
    }
}
