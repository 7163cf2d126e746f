import FootstepCore
import FootstepReports
import Foundation
import Testing

@Suite("Evidence statistics")
struct EvidenceStatisticsTests {
    typealias F = ReportFixture

    static func hour(_ date: Date) -> Int { F.calendar.component(.hour, from: date) }
    static func inQuiet(_ date: Date) -> Bool { hour(date) >= 23 || hour(date) < 7 }
    static func dayKey(_ date: Date) -> String {
        let c = F.calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    @Test func totalsByTypeKindHourAndDayMatchAStraightCount() {
        let events = F.events(count: 5000, days: 10)
        let statistics = EvidenceStatistics(events: events, levels: [], scope: F.scope(days: 10))
        let steps = events.filter { $0.kind == .footstep }
        #expect(statistics.footsteps == steps.count)
        #expect(statistics.otherEvents == events.count - steps.count)
        #expect(statistics.eventsByKind[.other] == events.count - steps.count)
        for type in FootstepType.allCases {
            #expect(statistics.footstepsByType[type, default: 0] == steps.filter { $0.type == type }.count)
            for hour in 0..<24 {
                #expect(statistics.footstepsByHourAndType[type]![hour] == steps.filter { $0.type == type && Self.hour($0.timestamp) == hour }.count)
            }
        }
        for hour in 0..<24 {
            #expect(statistics.footstepsByHour[hour] == steps.filter { Self.hour($0.timestamp) == hour }.count)
        }
        #expect(statistics.days.count == 11)  // 18:00 on day 1 to 18:00 on day 11
        for day in statistics.days {
            #expect(day.footsteps == steps.filter { Self.dayKey($0.timestamp) == day.date }.count)
            #expect(day.other == events.filter { $0.kind == .other && Self.dayKey($0.timestamp) == day.date }.count)
        }
        #expect(statistics.footstepsInQuietHours == steps.filter { Self.inQuiet($0.timestamp) }.count)
        #expect(statistics.eventsInQuietHours == events.filter { Self.inQuiet($0.timestamp) }.count)
        #expect(statistics.peakHour == statistics.footstepsByHour.indices.max { statistics.footstepsByHour[$0] < statistics.footstepsByHour[$1] })

        var perClockHour: [Date: Int] = [:]
        for step in steps { perClockHour[F.calendar.dateInterval(of: .hour, for: step.timestamp)!.start, default: 0] += 1 }
        let busiest = perClockHour.values.max()!
        #expect(statistics.busiestHours.first?.footsteps == busiest)
        #expect(statistics.busiestHours.count == 5)
    }

    @Test func nightsRunFromQuietHoursStartToEndAcrossMidnight() {
        let events = F.events(count: 3000, days: 5)
        let levels = F.levels(days: 5)
        let statistics = EvidenceStatistics(events: events, levels: levels, bouts: F.bouts(days: 5), scope: F.scope(days: 5))
        // From 18:00 on the 20th for 5 days: the nights starting 20th..24th, none partial.
        #expect(statistics.nights.map(\.date) == ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23", "2026-11-24"])
        for night in statistics.nights {
            #expect(!night.partial)
            #expect(night.end.timeIntervalSince(night.start) == 8 * 3600)
            #expect(Self.hour(night.start) == 23)
            let inside = events.filter { $0.timestamp >= night.start && $0.timestamp < night.end }
            #expect(night.footsteps == inside.filter { $0.kind == .footstep }.count)
            #expect(night.otherEvents == inside.filter { $0.kind == .other }.count)
            #expect(night.loudestLAFmax == inside.map(\.laMax).max())
            #expect(night.firstEvent == inside.map(\.timestamp).min())
            #expect(night.lastEvent == inside.map(\.timestamp).max())
            let minutes = levels.filter { $0.start >= night.start && $0.start < night.end }
            #expect(minutes.count == 480)
            let energy = minutes.reduce(0.0) { $0 + pow(10, $1.laeq / 10) } / Double(minutes.count)
            #expect(abs(night.levels!.laeq - 10 * log10(energy)) < 1e-9)
            let cEnergy = minutes.reduce(0.0) { $0 + pow(10, $1.lceq / 10) } / Double(minutes.count)
            #expect(abs(night.levels!.lceq - 10 * log10(cEnergy)) < 1e-9)
            #expect(night.levels!.lafMax == minutes.map(\.lafMax).max())
            #expect(abs(night.levels!.la90 - minutes.map(\.la90).reduce(0, +) / 480) < 1e-9)
        }
        #expect(statistics.nights.map(\.events).reduce(0, +) == statistics.eventsInQuietHours)
    }

    @Test func eachNightsWorstHourIsItsBusiestMinuteByMinute() {
        let events = F.events(count: 3000, days: 3)
        let levels = F.levels(days: 3)
        let statistics = EvidenceStatistics(events: events, levels: levels, scope: F.scope(days: 3))
        for night in statistics.nights {
            let worst = try! #require(night.worstHour)
            // The hour with the most footsteps (every night of the fixture has some).
            var perHour: [Date: Int] = [:]
            for event in events where event.kind == .footstep && event.timestamp >= night.start && event.timestamp < night.end {
                perHour[F.calendar.dateInterval(of: .hour, for: event.timestamp)!.start, default: 0] += 1
            }
            #expect(worst.footsteps == perHour.values.max())
            #expect(perHour[worst.start] == worst.footsteps)
            #expect(worst.minutes.count == 60)
            #expect(worst.minutes.first?.start == worst.start)
            let end = worst.start.addingTimeInterval(3600)
            let inHour = events.filter { $0.timestamp >= worst.start && $0.timestamp < end }
            #expect(worst.minutes.map(\.footsteps).reduce(0, +) == worst.footsteps)
            #expect(worst.minutes.map(\.otherEvents).reduce(0, +) == inHour.filter { $0.kind == .other }.count)
            for minute in worst.minutes {
                let inMinute = inHour.filter { $0.timestamp >= minute.start && $0.timestamp < minute.start.addingTimeInterval(60) }
                #expect(minute.eventLCFmax == inMinute.compactMap(\.lcMax).max())
                let level = levels.first { $0.start == minute.start }!
                #expect(minute.laeq == level.laeq && minute.lafMax == level.lafMax)
            }
        }
        // Without footsteps, the loudest hour by LAeq.
        let quiet = EvidenceStatistics(events: [], levels: levels, scope: F.scope(days: 3))
        for night in quiet.nights {
            let worst = try! #require(night.worstHour)
            #expect(worst.footsteps == 0)
            let hourly = quiet.hourlyLevels.filter { $0.start >= night.start && $0.start < night.end }
            #expect(abs(worst.laeq - hourly.map(\.laeq).max()!) < 1e-9)
        }
    }

    @Test func hourlyLevelsAreEnergyAveragesOfTheirMinutes() {
        let levels = F.levels(days: 2)
        let statistics = EvidenceStatistics(events: [], levels: levels, scope: F.scope(days: 2))
        #expect(statistics.hourlyLevels.count == 48)
        for hour in statistics.hourlyLevels {
            let minutes = levels.filter { $0.start >= hour.start && $0.start < hour.start.addingTimeInterval(3600) }
            #expect(minutes.count == 60)
            let laeq = 10 * log10(minutes.reduce(0.0) { $0 + pow(10, $1.laeq / 10) } / 60)
            #expect(abs(hour.laeq - laeq) < 1e-9)
            #expect(hour.lafMax == minutes.map(\.lafMax).max())
        }
        let overall = 10 * log10(levels.reduce(0.0) { $0 + pow(10, $1.laeq / 10) } / Double(levels.count))
        #expect(abs(statistics.levels!.laeq - overall) < 1e-9)
    }

    @Test func boutsAreSummarised() {
        let bouts = F.bouts(days: 2)
        let statistics = EvidenceStatistics(events: [], levels: [], bouts: bouts, scope: F.scope(days: 2))
        #expect(statistics.bouts.count == 6)
        #expect(statistics.bouts.running == bouts.filter { $0.kind == "running" }.count)
        #expect(statistics.bouts.steps == bouts.map(\.steps).reduce(0, +))
        #expect(statistics.bouts.longest?.steps == bouts.map(\.steps).max())
        let cadence = bouts.reduce(0.0) { $0 + $1.cadence * Double($1.steps) } / Double(bouts.map(\.steps).reduce(0, +))
        #expect(abs(statistics.bouts.meanCadence! - cadence) < 1e-12)
    }

    @Test func aScopeStartingAtMidnightIncludesThePreviousNightAsPartial() {
        let midnight = ISO8601DateFormatter().date(from: "2026-11-21T00:00:00Z")!
        let scope = ReportScope(from: midnight, to: midnight.addingTimeInterval(86400), timeZone: F.zone, quietHours: F.quiet, calibration: nil)
        let statistics = EvidenceStatistics(events: [], levels: [], scope: scope)
        #expect(statistics.nights.map(\.date) == ["2026-11-20", "2026-11-21"])
        #expect(statistics.nights.allSatisfy { $0.partial })
    }

    @Test func localTimesFollowDaylightSavingTransitions() {
        // London: clocks go forward 2026-03-29 01:00 UTC and back 2026-10-25 01:00 UTC.
        let from = ISO8601DateFormatter().date(from: "2026-03-27T00:00:00Z")!
        let scope = ReportScope(from: from, to: from.addingTimeInterval(240 * 86400), timeZone: F.zone, quietHours: F.quiet, calibration: nil)
        var generator = SeededRandom(seed: 3)
        let events = (0..<3000).map { _ in
            ReportEvent(timestamp: from.addingTimeInterval(Double.random(in: 0..<(240 * 86400), using: &generator)), kind: .footstep, type: .running, confidence: 1, laMax: 40)
        }
        let statistics = EvidenceStatistics(events: events, levels: [], scope: scope)
        for hour in 0..<24 {
            #expect(statistics.footstepsByHour[hour] == events.filter { Self.hour($0.timestamp) == hour }.count)
        }
        for night in statistics.nights {
            #expect(Self.hour(night.start) == 23 && Self.hour(night.end) == 7, "night \(night.date)")
        }
    }

    @Test func energyAverageWeightsByTime() {
        #expect(Decibel.energyAverage([]) == nil)
        #expect(abs(Decibel.energyAverage([(40, 60), (40, 60)])! - 40) < 1e-9)
        let value = Decibel.energyAverage([(50, 60), (30, 540)])!
        #expect(abs(value - 10 * log10((1e5 * 60 + 1e3 * 540) / 600)) < 1e-9)
    }
}
