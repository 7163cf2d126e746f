import FootstepCore
import Foundation

/// The `--period` of `footstepctl report`, resolved against the report's time zone.
///
/// - `last-night`: the latest quiet-hours window that has ended (run in the morning,
///   the night just gone);
/// - `yesterday`: local midnight to midnight before today;
/// - `today`: local midnight to now;
/// - `week`: the seven whole days before today;
/// - `FROM..TO`: `YYYY-MM-DD[THH:MM[:SS]]` local times (a date alone as TO means the
///   end of that day), or ISO 8601 with a zone.
struct ReportPeriod: Sendable, Equatable {
    var from: Date
    var to: Date
    /// For file names: `2026-11-20-night`, `2026-11-20`, `2026-11-14_2026-11-20`.
    var label: String

    static let help = "last-night, yesterday, today, week, or FROM..TO (YYYY-MM-DD[THH:MM] local, TO date inclusive)"

    /// Parses `text`; nil when it is none of the forms above.
    static func resolve(_ text: String, now: Date, timeZone: TimeZone, quietHours: DailyWindow) -> ReportPeriod? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        func day(_ offset: Int, from base: Date = today) -> Date { calendar.date(byAdding: .day, value: offset, to: base)! }
        func key(_ date: Date) -> String {
            let c = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        }
        switch text.lowercased() {
        case "last-night", "lastnight", "night":
            let wraps = quietHours.end <= quietHours.start
            for offset in [0, -1, -2] {
                // Wall-clock times (DST days are 23 or 25 hours long).
                guard let start = calendar.date(bySettingHour: quietHours.start / 60, minute: quietHours.start % 60, second: 0, of: day(offset)),
                    let end = calendar.date(bySettingHour: quietHours.end / 60 % 24, minute: quietHours.end % 60, second: 0, of: day(wraps ? offset + 1 : offset))
                else { continue }
                if end <= now { return ReportPeriod(from: start, to: end, label: "\(key(start))-night") }
            }
            return nil
        case "yesterday":
            return ReportPeriod(from: day(-1), to: today, label: key(day(-1)))
        case "today":
            return ReportPeriod(from: today, to: max(now, today.addingTimeInterval(1)), label: key(today))
        case "week":
            return ReportPeriod(from: day(-7), to: today, label: "\(key(day(-7)))_\(key(day(-1)))")
        default:
            let parts = text.components(separatedBy: "..")
            guard parts.count == 2, let from = parse(parts[0], calendar: calendar, endOfDay: false),
                let to = parse(parts[1], calendar: calendar, endOfDay: true), from < to
            else { return nil }
            return ReportPeriod(from: from, to: to, label: "\(key(from))_\(key(to.addingTimeInterval(-1)))")
        }
    }

    /// A local date or date-time, or ISO 8601 with a zone; a bare date as an end means the next midnight.
    private static func parse(_ text: String, calendar: Calendar, endOfDay: Bool) -> Date? {
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        let parts = text.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard (1...2).contains(parts.count) else { return nil }
        let ymd = parts[0].split(separator: "-").compactMap { Int($0) }
        let hms = parts.count == 2 ? parts[1].split(separator: ":").compactMap { Int($0) } : [0, 0]
        guard ymd.count == 3, (2...3).contains(hms.count) else { return nil }
        var components = DateComponents(year: ymd[0], month: ymd[1], day: ymd[2], hour: hms[0], minute: hms[1], second: hms.count == 3 ? hms[2] : 0)
        components.timeZone = calendar.timeZone
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return parts.count == 1 && endOfDay ? calendar.date(byAdding: .day, value: 1, to: date) : date
    }
}
