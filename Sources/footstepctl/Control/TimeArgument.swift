import ArgumentParser
import FootstepWire
import Foundation

/// A point in time on the command line: `2025-01-31T22:00:00Z` (ISO 8601),
/// `2025-01-31T22:00` or `2025-01-31 22:00` (local), `2025-01-31` (local
/// midnight), `now`, `today`, `yesterday`, or a time back from now such as
/// `30m`, `2h`, `7d` (also written `2h ago` or `-2h`: `--from -2h` works).
struct TimeArgument: ExpressibleByArgument, Sendable {
    let date: Date

    static let help = "ISO 8601, YYYY-MM-DD[ HH:MM[:SS]] local time, today, yesterday, now, or 30m/2h/7d ago"

    init?(argument: String) {
        guard let date = Self.parse(argument, now: Date()) else { return nil }
        self.date = date
    }

    static func parse(_ text: String, now: Date) -> Date? {
        let calendar = Calendar.current
        switch text.lowercased() {
        case "now": return now
        case "today": return calendar.startOfDay(for: now)
        case "yesterday": return calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: now))
        default: break
        }
        var relative = Substring(text.lowercased())
        if relative.hasSuffix(" ago") { relative = relative.dropLast(4) }
        if relative.hasPrefix("-") { relative = relative.dropFirst() }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let unit = relative.last.flatMap({ units[$0] }), let amount = Double(relative.dropLast()), amount >= 0 {
            return now.addingTimeInterval(-amount * unit)
        }
        if let date = APIJSON.parseDate(text) { return date }
        return local(text)
    }

    /// `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS]` or with `T`, in the local time zone.
    private static func local(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        guard (1...2).contains(parts.count) else { return nil }
        let day = parts[0].split(separator: "-").compactMap { Int($0) }
        guard day.count == 3 else { return nil }
        let time = parts.count == 2 ? parts[1].split(separator: ":").compactMap { Int($0) } : [0, 0]
        guard (2...3).contains(time.count) else { return nil }
        var components = DateComponents(
            year: day[0], month: day[1], day: day[2], hour: time[0], minute: time[1], second: time.count == 3 ? time[2] : 0)
        components.timeZone = TimeZone.current
        guard components.isValidDate(in: Calendar.current) else { return nil }
        return Calendar.current.date(from: components)
    }
}
