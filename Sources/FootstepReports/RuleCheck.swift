import FootstepCore
import Foundation

/// The outcome of one ``ReportRule`` over a report's scope: its threshold, whether it
/// could be judged, and every exceedance with its time.
public struct RuleCheck: Sendable, Equatable {
    /// A time the rule was exceeded and by how much.
    public struct Exceedance: Sendable, Equatable {
        /// Start of the exceeding minute or hour, or the event's onset.
        public var time: Date
        /// The level (dB) or count that exceeded the threshold.
        public var value: Double
        /// What made it: a footstep (the event, or one in the minute or hour), only other impacts, or neither.
        public var cause: Cause = .footstep

        public enum Cause: String, Sendable, Equatable {
            case footstep
            case otherImpact = "other"
            /// A minute without any detected impact: the background.
            case background
        }
    }

    public var rule: ReportRule
    public var name: String
    /// The threshold in words.
    public var threshold: String
    /// False when the rule compares absolute levels but the levels are uncalibrated:
    /// then nothing is counted, and the report says the rule cannot be judged.
    public var judgeable: Bool
    public var exceedances: [Exceedance]
    /// Exceedances per night (night date yyyy-MM-dd → count), for rules counted per night.
    public var perNight: [String: Int]

    /// Checks `rule` on the events and level intervals of `scope`.
    public init(rule: ReportRule, events: [ReportEvent], levels: [ReportLevelInterval], scope: ReportScope) {
        self.rule = rule
        name = rule.name
        threshold = rule.thresholdDescription(quietHours: scope.quietHours)
        judgeable = scope.calibrated || !rule.needsCalibration
        perNight = [:]
        guard judgeable else {
            exceedances = []
            return
        }
        let clock = LocalClock(timeZone: scope.timeZone, from: scope.from, to: scope.to)
        let nightHours = rule.nightHours ?? scope.quietHours
        func limit(_ date: Date) -> Double? { rule.limit(minuteOfDay: clock.minuteOfDay(date), quietHours: scope.quietHours) }

        var hits: [Exceedance] = []
        switch rule.metric {
        case .laeq1min:
            let sorted = events.sorted { $0.timestamp < $1.timestamp }
            for level in levels where scope.contains(level.start) {
                if let limit = limit(level.start), level.laeq > limit {
                    let inMinute = EvidenceStatistics.slice(
                        sorted, from: level.start, to: level.start.addingTimeInterval(level.seconds), time: \.timestamp)
                    let cause: Exceedance.Cause =
                        inMinute.contains { $0.kind == .footstep } ? .footstep : (inMinute.isEmpty ? .background : .otherImpact)
                    hits.append(Exceedance(time: level.start, value: level.laeq, cause: cause))
                }
            }
        case .lafmax:
            for event in events where scope.contains(event.timestamp) {
                if let limit = limit(event.timestamp), event.laMax > limit {
                    hits.append(Exceedance(time: event.timestamp, value: event.laMax, cause: event.kind == .footstep ? .footstep : .otherImpact))
                }
            }
        case .eventsPerHour:
            var perHour: [Date: Int] = [:]
            for event in events where event.kind == .footstep && scope.contains(event.timestamp) {
                perHour[clock.hourStart(event.timestamp), default: 0] += 1
            }
            for (hour, count) in perHour {
                if let limit = limit(hour), Double(count) > limit { hits.append(Exceedance(time: hour, value: Double(count))) }
            }
        }
        hits.sort { $0.time < $1.time }

        if rule.minimumPerHour > 1 && rule.metric != .eventsPerHour {
            var perHour: [Date: (count: Int, footsteps: Int)] = [:]
            for hit in hits {
                perHour[clock.hourStart(hit.time), default: (0, 0)].count += 1
                if hit.cause == .footstep { perHour[clock.hourStart(hit.time), default: (0, 0)].footsteps += 1 }
            }
            hits = perHour.filter { $0.value.count >= rule.minimumPerHour }
                .map { Exceedance(time: $0.key, value: Double($0.value.count), cause: $0.value.footsteps > 0 ? .footstep : .otherImpact) }
                .sorted { $0.time < $1.time }
        }
        exceedances = hits
        if rule.countPerNight {
            for hit in hits { perNight[Self.nightDate(hit.time, quietHours: nightHours, clock: clock), default: 0] += 1 }
        }
    }

    /// Checks the standard rules (WHO night, Korean inter-floor) and then `extra` rules.
    public static func checks(
        _ rules: [ReportRule] = ReportRule.standard, events: [ReportEvent], levels: [ReportLevelInterval],
        scope: ReportScope
    ) -> [RuleCheck] {
        rules.map { RuleCheck(rule: $0, events: events, levels: levels, scope: scope) }
    }

    /// The standard checks (kept for callers of the first report API).
    public static func standardChecks(events: [ReportEvent], levels: [ReportLevelInterval], scope: ReportScope) -> [RuleCheck] {
        checks(events: events, levels: levels, scope: scope)
    }

    /// Nights with at least one exceedance.
    public var nightsExceeded: Int { perNight.values.filter { $0 > 0 }.count }

    /// One line for a person: "exceeded 12 times on 3 nights", "not exceeded", or why it
    /// cannot be judged.
    public var verdict: String {
        guard judgeable else {
            return "cannot be judged: the levels are uncalibrated (relative dBFS), so absolute thresholds do not apply"
        }
        if exceedances.isEmpty { return "not exceeded" }
        let unit = rule.minimumPerHour > 1 || rule.metric == .eventsPerHour ? "hour" : (rule.metric == .laeq1min ? "minute" : "time")
        let times = exceedances.count == 1 ? "1 \(unit)" : "\(exceedances.count) \(unit)s"
        let label = unit == "time" ? "exceeded \(exceedances.count == 1 ? "once" : "\(exceedances.count) times")" : "exceeded in \(times)"
        let verdict = rule.countPerNight ? "\(label) on \(nightsExceeded) night\(nightsExceeded == 1 ? "" : "s")" : label
        return verdict + " (" + causeSplit + ")"
    }

    /// "4 by footsteps, 2 by other impacts, 1 by the background".
    public var causeSplit: String {
        let counts: [(Exceedance.Cause, String)] = [(.footstep, "footsteps"), (.otherImpact, "other impacts"), (.background, "the background")]
        return counts.compactMap { cause, words in
            let count = exceedances.count { $0.cause == cause }
            return count > 0 ? "\(count) by \(words)" : nil
        }.joined(separator: ", ")
    }

    /// The date (yyyy-MM-dd) of the night window `time` falls in.
    static func nightDate(_ time: Date, quietHours: DailyWindow, clock: LocalClock) -> String {
        let minute = clock.minuteOfDay(time)
        let wraps = quietHours.end <= quietHours.start
        let day = clock.dayNumber(time) - (wraps && minute < quietHours.end ? 1 : 0)
        return LocalClock.dayKey(dayNumber: day)
    }
}
