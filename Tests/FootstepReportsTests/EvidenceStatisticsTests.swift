import FootstepCore
import FootstepReports
import Foundation
import Testing

@Suite("Evidence statistics and rule checks")
struct EvidenceStatisticsTests {
    typealias Generator = SeededRandom

    static let zone = TimeZone(identifier: "Europe/London")!
    static let start = ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z")!
    static let quiet = DailyWindow(start: 23 * 60, end: 7 * 60)

    static func makeEvents(count: Int, days: Int) -> [ReportEvent] {
        var generator = Generator(seed: 42)
        return (0..<count).map { _ in
            let offset = Double.random(in: 0..<(Double(days) * 86400), using: &generator)
            let isStep = Double.random(in: 0..<1, using: &generator) < 0.8
            return ReportEvent(
                timestamp: start.addingTimeInterval(offset), kind: isStep ? .footstep : .other,
                type: isStep ? FootstepType.allCases.randomElement(using: &generator)! : .unknown,
                laMax: Double.random(in: 30..<70, using: &generator), lcMax: 60, confidence: 0.9)
        }.sorted { $0.timestamp < $1.timestamp }
    }

    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    @Test func totalsByTypeHourAndDayMatchAStraightCount() {
        let events = Self.makeEvents(count: 5000, days: 10)
        let scope = ReportScope(from: Self.start, to: Self.start.addingTimeInterval(10 * 86400), timeZone: Self.zone, quietHours: Self.quiet, calibrated: true)
        let statistics = EvidenceStatistics(events: events, levels: [], scope: scope)

        let steps = events.filter { $0.kind == .footstep }
        #expect(statistics.footsteps == steps.count)
        #expect(statistics.otherEvents == events.count - steps.count)
        for type in FootstepType.allCases {
            #expect(statistics.footstepsByType[type, default: 0] == steps.filter { $0.type == type }.count)
        }
        for hour in 0..<24 {
            #expect(statistics.footstepsByHour[hour] == steps.filter { Self.calendar.component(.hour, from: $0.timestamp) == hour }.count)
        }
        #expect(statistics.footstepsByDay.map(\.count).reduce(0, +) == steps.count)
        let quietCount = steps.filter {
            let hour = Self.calendar.component(.hour, from: $0.timestamp)
            return hour >= 23 || hour < 7
        }.count
        #expect(statistics.footstepsInQuietHours == quietCount)
        #expect(statistics.peakHour == statistics.footstepsByHour.indices.max { statistics.footstepsByHour[$0] < statistics.footstepsByHour[$1] })
    }

    @Test func nightsRunFromQuietHoursStartToEndAcrossMidnight() {
        let events = Self.makeEvents(count: 3000, days: 5)
        let scope = ReportScope(from: Self.start, to: Self.start.addingTimeInterval(5 * 86400), timeZone: Self.zone, quietHours: Self.quiet, calibrated: true)
        let statistics = EvidenceStatistics(events: events, levels: [], scope: scope)
        #expect(statistics.nights.map(\.date) == ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"])
        for night in statistics.nights {
            #expect(night.end.timeIntervalSince(night.start) == 8 * 3600)
            let inside = events.filter { $0.timestamp >= night.start && $0.timestamp < night.end }
            #expect(night.footsteps == inside.filter { $0.kind == .footstep }.count)
            #expect(night.otherEvents == inside.filter { $0.kind == .other }.count)
            #expect(night.loudestLAFmax == inside.map(\.laMax).max())
            #expect(Self.calendar.component(.hour, from: night.start) == 23)
        }
    }

    @Test func ruleChecksCountExceedancesIndependently() {
        let events = Self.makeEvents(count: 4000, days: 3)
        var levels: [ReportLevelInterval] = []
        var generator = Generator(seed: 7)
        for minute in 0..<(3 * 1440) {
            let laeq = Double.random(in: 25..<45, using: &generator)
            levels.append(ReportLevelInterval(start: Self.start.addingTimeInterval(Double(minute) * 60), laeq: laeq, lceq: laeq + 10, lafMax: laeq + 8, la90: laeq - 5))
        }
        let scope = ReportScope(from: Self.start, to: Self.start.addingTimeInterval(3 * 86400), timeZone: Self.zone, quietHours: Self.quiet, calibrated: false)
        let checks = RuleCheck.standardChecks(events: events, levels: levels, scope: scope)
        #expect(checks.count == 3)
        #expect(checks[0].threshold.contains("uncalibrated"))

        func hour(_ date: Date) -> Int { Self.calendar.component(.hour, from: date) }
        let who = events.filter { (hour($0.timestamp) >= 23 || hour($0.timestamp) < 7) && $0.laMax > 45 }
        #expect(checks[0].exceedances.count == who.count)
        let minutes = levels.filter { $0.laeq > ((hour($0.start) >= 22 || hour($0.start) < 6) ? 34 : 39) }
        #expect(checks[1].exceedances.count == minutes.count)
        var counts: [String: Int] = [:]
        for event in events where event.laMax > ((hour(event.timestamp) >= 22 || hour(event.timestamp) < 6) ? 52 : 57) {
            let c = Self.calendar.dateComponents([.year, .month, .day, .hour], from: event.timestamp)
            counts["\(c.year!)-\(c.month!)-\(c.day!)-\(c.hour!)", default: 0] += 1
        }
        #expect(checks[2].exceedances.count == counts.values.filter { $0 >= 3 }.count)
    }

    @Test func energyAverageWeightsByTime() {
        #expect(Decibel.energyAverage([]) == nil)
        #expect(abs(Decibel.energyAverage([(40, 60), (40, 60)])! - 40) < 1e-9)
        // 50 dB for 1 minute and silence-ish 30 dB for 9 minutes: dominated by the loud minute.
        let value = Decibel.energyAverage([(50, 60), (30, 540)])!
        #expect(abs(value - 10 * log10((1e5 * 60 + 1e3 * 540) / 600)) < 1e-9)
    }
}
