#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Wall-clock fields and day boundaries of instants, from the C library's
/// time-zone code: `.local` is the system's zone (`TZ`, `/etc/localtime`,
/// read once), `.utc` is UTC.
///
/// The daemon needs a weekday, an hour and a minute for its schedule and
/// local midnight for "events today". On Linux, Foundation's
/// `Calendar.current` and `TimeZone.current` answer through ICU's calendar
/// and zone data. With this type (and the store's migration not asking GRDB
/// for English inflections) ICU resident in the daemon went from 4.9 to
/// 2.9 MB. `localtime_r` and `mktime` read the same tzdata, with the same
/// daylight-saving rules.
public struct WallClockZone: Sendable, Equatable {
    private enum Kind: Sendable, Equatable {
        case local
        case utc
    }

    private let kind: Kind

    /// The system's local time zone.
    public static let local = WallClockZone(kind: .local)
    /// Coordinated Universal Time.
    public static let utc = WallClockZone(kind: .utc)

    /// Wall-clock fields of one instant.
    public struct Fields: Sendable, Equatable {
        /// ISO weekday: 1 = Monday … 7 = Sunday.
        public var weekday: Int
        public var hour: Int
        public var minute: Int

        public init(weekday: Int, hour: Int, minute: Int) {
            self.weekday = weekday
            self.hour = hour
            self.minute = minute
        }
    }

    /// The weekday, hour and minute at `date`.
    public func fields(of date: Date) -> Fields {
        let parts = brokenDown(date)
        return Fields(weekday: (Int(parts.tm_wday) + 6) % 7 + 1, hour: Int(parts.tm_hour), minute: Int(parts.tm_min))
    }

    /// Midnight at the start of the day that contains `date`.
    public func startOfDay(containing date: Date) -> Date {
        var parts = brokenDown(date)
        return midnight(of: &parts)
    }

    /// Midnight at the start of the day after the one that contains `date`
    /// (23 or 25 hours later across a daylight-saving change).
    public func startOfNextDay(after date: Date) -> Date {
        var parts = brokenDown(date)
        parts.tm_mday += 1  // mktime and timegm normalise the 32nd of a month
        return midnight(of: &parts)
    }

    /// The start of the wall-clock hour that contains `date` (the instant its minute and second were
    /// 0; in a repeated hour at a daylight-saving change, the one `date` is in).
    public func startOfHour(containing date: Date) -> Date {
        let parts = brokenDown(date)
        let whole = date.timeIntervalSince1970.rounded(.down)
        return Date(timeIntervalSince1970: whole - Double(Int(parts.tm_min) * 60 + Int(parts.tm_sec)))
    }

    private func brokenDown(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        switch kind {
        case .local:
            Self.loadLocalZone
            _ = localtime_r(&seconds, &parts)
        case .utc:
            _ = gmtime_r(&seconds, &parts)
        }
        return parts
    }

    private func midnight(of parts: inout tm) -> Date {
        parts.tm_hour = 0
        parts.tm_min = 0
        parts.tm_sec = 0
        switch kind {
        case .local:
            parts.tm_isdst = -1  // let mktime decide whether midnight is summer time
            return Date(timeIntervalSince1970: Double(mktime(&parts)))
        case .utc:
            return Date(timeIntervalSince1970: Double(timegm(&parts)))
        }
    }

    /// `localtime_r` need not read `TZ` itself (POSIX); `tzset` does, once.
    private static let loadLocalZone: Void = tzset()
}
