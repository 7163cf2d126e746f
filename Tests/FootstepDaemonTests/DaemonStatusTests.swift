import FootstepDaemon
import Foundation
import Testing

@Suite struct DaemonStatusTests {
    /// An event timed before the counted day's midnight (stored late, after the
    /// daemon started the new day) is not counted as today's.
    @Test func onlyEventsOfTheCountedDayCountAsToday() {
        let midnight = Date(timeIntervalSince1970: 1_795_478_400)  // 2026-11-24T00:00:00Z
        var status = DaemonStatus()
        status.countToday(label: "stomping", timestamp: midnight.addingTimeInterval(-1))
        #expect(status.eventsToday == ["stomping": 1], "before the first count every event counts")

        status.eventsToday = [:]
        status.eventsTodayFrom = midnight
        status.countToday(label: "stomping", timestamp: midnight.addingTimeInterval(-0.5))
        status.countToday(label: "stomping", timestamp: midnight)
        status.countToday(label: "other", timestamp: midnight.addingTimeInterval(30))
        #expect(status.eventsToday == ["stomping": 1, "other": 1])
        #expect(status.eventsTodayTotal == 2)
        #expect(status.line.contains("2 events today"))
    }
}
