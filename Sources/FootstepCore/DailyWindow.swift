import Foundation

/// A daily time window in minutes after local midnight; `end <= start` wraps
/// past midnight (22:00–08:00).
public struct DailyWindow: Sendable, Equatable, CustomStringConvertible {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Parses `HH:MM-HH:MM`.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start != end else { return nil }
        self.init(start: start, end: end)
    }

    /// True when `minute` (after midnight) lies in the window.
    public func contains(minute: Int) -> Bool {
        start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
    }

    public var description: String {
        String(format: "%02d:%02d-%02d:%02d", start / 60, start % 60, end / 60, end % 60)
    }

    private static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
            (0...24).contains(hours), (0..<60).contains(minutes), hours * 60 + minutes <= 1440
        else { return nil }
        return hours * 60 + minutes
    }
}
