import Foundation
import FootstepCore

/// When the daemon records: always, or in weekly windows such as
/// `mon-fri 22:00-08:00` (a window belongs to the day it starts on).
public enum MonitoringSchedule: Sendable, Equatable, CustomStringConvertible {
    case always
    case windows([Window])

    public struct Window: Sendable, Equatable, CustomStringConvertible {
        /// Weekdays the window starts on, 1 = Monday … 7 = Sunday.
        public var weekdays: Set<Int>
        public var time: DailyWindow

        /// `DAYS HH:MM-HH:MM`, as ``MonitoringSchedule/window(parsing:)`` reads it ("daily" for every day).
        public var description: String {
            let days = weekdays.count == 7 ? "daily" : weekdays.sorted().map { dayNames[$0 - 1] }.joined(separator: ",")
            return "\(days) \(time)"
        }
    }

    /// Parses one window: `DAYS HH:MM-HH:MM` with DAYS like `mon-fri`,
    /// `sat,sun`, `daily`. Returns nil when malformed.
    public static func window(parsing text: String) -> Window? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 2, let time = DailyWindow(parsing: parts[1]), let days = weekdays(parts[0]) else { return nil }
        return Window(weekdays: days, time: time)
    }

    /// True when recording should be on at `date` in `zone` (local time by default).
    public func isActive(at date: Date, in zone: WallClockZone = .local) -> Bool {
        guard case let .windows(windows) = self else { return true }
        let fields = zone.fields(of: date)
        let minute = fields.hour * 60 + fields.minute
        let today = fields.weekday
        let yesterday = (today + 5) % 7 + 1
        for window in windows {
            let time = window.time
            if window.weekdays.contains(today), time.contains(minute: minute), time.start < time.end || minute >= time.start {
                return true
            }
            // The part after midnight of a window that started yesterday.
            if time.end <= time.start, minute < time.end, window.weekdays.contains(yesterday) { return true }
        }
        return false
    }

    public var description: String {
        switch self {
        case .always: "always"
        case let .windows(windows): windows.map(\.description).joined(separator: "; ")
        }
    }

    private static func weekdays(_ text: String) -> Set<Int>? {
        if text == "daily" { return Set(1...7) }
        var days: Set<Int> = []
        for part in text.lowercased().split(separator: ",") {
            let range = part.split(separator: "-").map(String.init)
            guard let first = dayNames.firstIndex(of: range[0]) else { return nil }
            if range.count == 1 {
                days.insert(first + 1)
            } else if range.count == 2, let last = dayNames.firstIndex(of: range[1]) {
                var day = first
                while true {
                    days.insert(day + 1)
                    if day == last { break }
                    day = (day + 1) % 7
                }
            } else {
                return nil
            }
        }
        return days.isEmpty ? nil : days
    }
}

/// Weekday names, Monday first, as the schedule's windows write them.
private let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
