import FootstepCore
import FootstepReports
import Foundation
import Testing

@Suite("Rule checks")
struct RuleCheckTests {
    typealias F = ReportFixture

    static func hour(_ date: Date) -> Int { F.calendar.component(.hour, from: date) }
    static func koreanNight(_ date: Date) -> Bool { hour(date) >= 22 || hour(date) < 6 }
    static func hourKey(_ date: Date) -> Date { F.calendar.dateInterval(of: .hour, for: date)!.start }

    @Test func standardRulesCountExceedancesIndependently() {
        let events = F.events(count: 4000, days: 3)
        let levels = F.levels(days: 3)
        let checks = RuleCheck.checks(events: events, levels: levels, scope: F.scope(days: 3))
        #expect(checks.map(\.name) == ReportRule.standard.map(\.name))
        #expect(checks.allSatisfy { $0.judgeable })

        let who = events.filter { (Self.hour($0.timestamp) >= 23 || Self.hour($0.timestamp) < 7) && $0.laMax > 45 }
        #expect(checks[0].exceedances.count == who.count)
        // WHO per night: the night of an event before 07:00 is the previous date.
        var perNight: [String: Int] = [:]
        for event in who {
            let night = Self.hour(event.timestamp) < 7 ? event.timestamp.addingTimeInterval(-86400) : event.timestamp
            let c = F.calendar.dateComponents([.year, .month, .day], from: night)
            perNight[String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!), default: 0] += 1
        }
        #expect(checks[0].perNight == perNight)
        #expect(checks[0].verdict.contains("on \(perNight.count) nights"))

        let minutes = levels.filter { $0.laeq > (Self.koreanNight($0.start) ? 34 : 39) }
        #expect(checks[1].exceedances.count == minutes.count)

        var hours: [Date: Int] = [:]
        for event in events where event.laMax > (Self.koreanNight(event.timestamp) ? 52 : 57) { hours[Self.hourKey(event.timestamp), default: 0] += 1 }
        let exceededHours = hours.filter { $0.value >= 3 }
        #expect(checks[2].exceedances.count == exceededHours.count)
        #expect(checks[2].exceedances.map(\.time) == exceededHours.keys.sorted())
    }

    @Test func uncalibratedLevelsAreNotJudgedAgainstAbsoluteThresholds() {
        let events = F.events(count: 500, days: 2)
        let rules = ReportRule.standard + [ReportRule(name: "busy hours", metric: .eventsPerHour, threshold: 10)]
        let checks = RuleCheck.checks(rules, events: events, levels: F.levels(days: 2), scope: F.scope(days: 2, calibrated: false))
        for check in checks.prefix(3) {
            #expect(!check.judgeable)
            #expect(check.exceedances.isEmpty)
            #expect(check.verdict.contains("cannot be judged"))
        }
        // Counting footsteps needs no calibration.
        #expect(checks[3].judgeable)
    }

    @Test func userRulesHonourWindowAndMinimumPerHour() {
        let events = F.events(count: 3000, days: 3)
        let scope = F.scope(days: 3)
        let quiet = { (date: Date) in Self.hour(date) >= 23 || Self.hour(date) < 7 }

        let dayMax = RuleCheck(rule: ReportRule(name: "day max", metric: .lafmax, threshold: 60, window: .day, minimumPerHour: 2), events: events, levels: [], scope: scope)
        var hours: [Date: Int] = [:]
        for event in events where !quiet(event.timestamp) && event.laMax > 60 { hours[Self.hourKey(event.timestamp), default: 0] += 1 }
        #expect(dayMax.exceedances.count == hours.filter { $0.value >= 2 }.count)
        #expect(dayMax.exceedances.count > 0)

        let busy = RuleCheck(rule: ReportRule(name: "busy", metric: .eventsPerHour, threshold: 25, window: .night), events: events, levels: [], scope: scope)
        var steps: [Date: Int] = [:]
        for event in events where event.kind == .footstep { steps[Self.hourKey(event.timestamp), default: 0] += 1 }
        let expected = steps.filter { quiet($0.key) && $0.value > 25 }
        #expect(busy.exceedances.count == expected.count)
        #expect(busy.exceedances.count > 0)
        #expect(busy.threshold == "more footsteps in a clock hour than 25 footsteps at night (23:00-07:00)")

        let quietMinutes = RuleCheck(rule: ReportRule(name: "night LAeq", metric: .laeq1min, threshold: 40, window: .night), events: [], levels: F.levels(days: 3), scope: scope)
        #expect(quietMinutes.exceedances.count == F.levels(days: 3).filter { quiet($0.start) && $0.laeq > 40 }.count)
    }
}
