import Foundation

/// How control commands show times, durations, sizes and levels to people.
enum HumanFormat {
    /// Local time, `2025-01-31 22:04:05`.
    static func time(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// Local time of day with milliseconds (event onsets), `22:04:05.123`.
    static func clock(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        return String(format: "%02d:%02d:%02d.%03d", c.hour!, c.minute!, c.second!, c.nanosecond! / 1_000_000)
    }

    /// `3d 04h`, `2h 05m`, `4m 09s`, `12.5 s`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        let whole = Int(seconds)
        switch whole {
        case 86400...: return String(format: "%dd %02dh", whole / 86400, whole % 86400 / 3600)
        case 3600...: return String(format: "%dh %02dm", whole / 3600, whole % 3600 / 60)
        case 60...: return String(format: "%dm %02ds", whole / 60, whole % 60)
        default: return String(format: "%.1f s", seconds)
        }
    }

    /// `512 B`, `1.2 MB`, `3.4 GB` (SI units, as `df -H`).
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// `62.1` (one decimal), or `-` for a level that is not finite (silence).
    static func decibels(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f", value) : "-"
    }

    /// `0.87`.
    static func fraction(_ value: Double) -> String { String(format: "%.2f", value) }
}

extension HumanFormat {
    /// `label  value` lines with the labels padded to one width.
    static func labelled(_ rows: [(String, String)]) -> [String] {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }
    }
}
