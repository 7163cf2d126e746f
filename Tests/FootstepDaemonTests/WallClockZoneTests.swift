import FootstepCore
import Foundation
import Testing

@testable import FootstepDaemon

/// `WallClockZone` (the C library's time zones) against Foundation's
/// `Calendar`, which the daemon no longer uses for them.
@Suite struct WallClockZoneTests {
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func utcFieldsAndDayBoundaries() {
        // 2026-11-22 is a Sunday (ISO weekday 7); 2024-02-29 a Thursday (4).
        let sunday = Self.date("2026-11-22T23:59:30Z")
        #expect(WallClockZone.utc.fields(of: sunday) == .init(weekday: 7, hour: 23, minute: 59))
        #expect(WallClockZone.utc.fields(of: Self.date("2026-11-23T00:00:00Z")).weekday == 1)
        #expect(WallClockZone.utc.startOfDay(containing: sunday) == Self.date("2026-11-22T00:00:00Z"))
        #expect(WallClockZone.utc.startOfNextDay(after: sunday) == Self.date("2026-11-23T00:00:00Z"))
        let leapDay = Self.date("2024-02-29T12:00:00Z")
        #expect(WallClockZone.utc.fields(of: leapDay).weekday == 4)
        #expect(WallClockZone.utc.startOfNextDay(after: leapDay) == Self.date("2024-03-01T00:00:00Z"))
        #expect(WallClockZone.utc.startOfNextDay(after: Self.date("2026-12-31T08:00:00Z")) == Self.date("2027-01-01T00:00:00Z"))
        #expect(WallClockZone.utc.startOfHour(containing: sunday) == Self.date("2026-11-22T23:00:00Z"))
    }

    /// Local time agrees with `Calendar.current` hour by hour through a year
    /// in this machine's zone (`make test` runs it again with
    /// `TZ=Europe/London`, through both daylight-saving changes).
    @Test func localAgreesWithFoundationsCalendarThroughAYear() {
        let calendar = Calendar.current
        var date = Self.date("2026-01-01T00:17:00Z")
        for _ in 0..<(366 * 24) {
            let c = calendar.dateComponents([.weekday, .hour, .minute], from: date)
            let fields = WallClockZone.local.fields(of: date)
            #expect(fields == .init(weekday: (c.weekday! + 5) % 7 + 1, hour: c.hour!, minute: c.minute!), "\(date)")
            let start = calendar.startOfDay(for: date)
            #expect(WallClockZone.local.startOfDay(containing: date) == start, "\(date)")
            #expect(WallClockZone.local.startOfNextDay(after: date) == calendar.date(byAdding: .day, value: 1, to: start), "\(date)")
            #expect(WallClockZone.local.startOfHour(containing: date) == calendar.dateInterval(of: .hour, for: date)?.start, "\(date)")
            date += 3600
        }
    }
}
