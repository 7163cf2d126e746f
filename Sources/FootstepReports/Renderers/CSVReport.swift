import FootstepCore
import Foundation

/// One row per event of the report's scope (every event, not only the listed ones,
/// and those a review rejected, marked in `review`), RFC 4180 quoting, UTF-8, `\r\n` line ends.
///
/// Columns (stable; new columns are only ever appended):
///
/// | column | meaning |
/// | --- | --- |
/// | `id` | store event id (empty for analysed recordings) |
/// | `session_id` | store session id |
/// | `timestamp_utc` | onset, ISO 8601 UTC with milliseconds (`2026-11-20T23:14:05.120Z`) |
/// | `local_time` | onset in the report's time zone, ISO 8601 with offset |
/// | `night_of` | date (yyyy-MM-dd) of the night (quiet-hours window) holding the onset; empty outside quiet hours |
/// | `kind` | `footstep` or `other` |
/// | `type` | `stomping`, `heel_strike`, `shuffling`, `running`, `unknown` |
/// | `confidence` | confidence in the label 0…1 (with a calibrated model: how often such a label was right on recordings the model never heard) |
/// | `intensity` | `low`, `medium`, `high` (empty if unknown) |
/// | `la_max` | LAFmax, dB(A) |
/// | `lc_max` | LCFmax, dB(C) (empty if not measured) |
/// | `sel` | sound exposure level, dB(A) (empty if unknown) |
/// | `duration_s` | seconds |
/// | `level_status` | `calibrated` or `uncalibrated` (then levels are relative dBFS-based) |
/// | `clip_path`, `clip_sha256` | the event's audio clip and its recorded SHA-256 |
/// | `notes` | user notes |
/// | `revised_from` | the type the event was stored with, when a later revision (bout typer) changed `type`; empty otherwise |
/// | `review` | `confirmed` or `rejected` by a person who listened (a rejected event counts nowhere); empty if not reviewed |
/// | `review_reason`, `reviewer` | why, and the reviewer's user name |
public struct CSVReport {
    public var document: ReportDocument

    public static let header = [
        "id", "session_id", "timestamp_utc", "local_time", "night_of", "kind", "type", "confidence", "intensity",
        "la_max", "lc_max", "sel", "duration_s", "level_status", "clip_path", "clip_sha256", "notes",
        "revised_from", "review", "review_reason", "reviewer",
    ]

    public init(document: ReportDocument) {
        self.document = document
    }

    /// Writes the CSV to `path` as a stream (replaced atomically when complete).
    public func write(to path: String) throws(ReportError) {
        var file = try ReportOutputFile(path: path)
        render(into: &file)
        try file.commit()
    }

    /// The whole CSV as one string.
    public func render() -> String {
        var text = ""
        text.reserveCapacity(160 * (document.events.count + document.rejected.count + 1))
        render(into: &text)
        return text
    }

    /// Writes the header and one line per event to `stream`.
    public func render<Stream: TextOutputStream>(into stream: inout Stream) {
        let scope = document.scope
        let clock = document.clock
        let status = scope.calibrated ? "calibrated" : "uncalibrated"
        stream.write(Self.header.joined(separator: ",") + "\r\n")
        var line = ""
        line.reserveCapacity(512)
        for event in Self.merged(document.events, document.rejected) {
            line.removeAll(keepingCapacity: true)
            let quiet = scope.quietHours.contains(minute: clock.minuteOfDay(event.timestamp))
            if let id = event.id { line += String(id) }
            line += ","
            if let session = event.sessionId { line += String(session) }
            line += "," + ReportDates.utc(event.timestamp) + "," + clock.iso8601(event.timestamp) + ","
            if quiet { line += RuleCheck.nightDate(event.timestamp, quietHours: scope.quietHours, clock: clock) }
            line += "," + event.kind.rawValue + "," + event.type.rawValue + ","
            ReportNumber.append(event.confidence, 3, to: &line)
            line += "," + (event.intensity?.rawValue ?? "") + ","
            ReportNumber.append(event.laMax, 2, to: &line)
            line += ","
            if let lcMax = event.lcMax { ReportNumber.append(lcMax, 2, to: &line) }
            line += ","
            if let sel = event.sel { ReportNumber.append(sel, 2, to: &line) }
            line += ","
            ReportNumber.append(event.duration, 3, to: &line)
            line += "," + status + "," + Self.quote(event.clip?.path ?? "") + "," + Self.quote(event.clip?.sha256 ?? "") + ","
            line += Self.quote(event.notes) + "," + (event.revisedFrom ?? "") + ","
            line += (event.review?.verdict.rawValue ?? "") + "," + Self.quote(event.review?.reason ?? "") + ","
            line += Self.quote(event.review?.reviewer ?? "") + "\r\n"
            stream.write(line)
        }
    }

    /// Two lists in time order as one, in time order (ties: `a` first).
    static func merged(_ a: [ReportEvent], _ b: [ReportEvent]) -> some Sequence<ReportEvent> {
        AnySequence {
            var i = 0, j = 0
            return AnyIterator {
                if i < a.count, j >= b.count || a[i].timestamp <= b[j].timestamp {
                    defer { i += 1 }
                    return a[i]
                }
                guard j < b.count else { return nil }
                defer { j += 1 }
                return b[j]
            }
        }
    }

    /// Quotes a field when it holds a comma, quote or line break.
    static func quote(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// ISO 8601 UTC text of report dates.
enum ReportDates {
    /// `2026-11-20T23:14:05.120Z`.
    static func utc(_ date: Date) -> String {
        utcClock.dayKey(date) + "T" + utcClock.time(date, fraction: true) + "Z"
    }

    /// Parses `utc(_:)`'s form (`Z` only; milliseconds optional) exactly, to the millisecond.
    static func parseUTC(_ text: String) -> Date? {
        let scalars = Array(text.utf8)
        guard scalars.count == 20 || scalars.count == 24, scalars.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: scalars[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        let milli = scalars.count == 24 ? number(20..<23) : 0
        guard let milli else { return nil }
        // Days from civil (H. Hinnant).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let ms = ((Int64(days) * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000 + Int64(milli)
        return Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    private static let utcClock = LocalClock(timeZone: TimeZone(identifier: "UTC")!)
}
