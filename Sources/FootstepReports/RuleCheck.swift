import FootstepCore
import Foundation

/// One rule a report checks, with its threshold and every exceedance.
public struct RuleCheck: Sendable, Equatable {
    /// A time the rule was exceeded and by how much.
    public struct Exceedance: Sendable, Equatable {
        /// Start of the exceeding minute, hour or event.
        public var time: Date
        /// The level or count that exceeded the threshold.
        public var value: Double
    }

    public var name: String
    /// The threshold in words, e.g. "LAFmax above 45 dB(A) indoors at night".
    public var threshold: String
    public var exceedances: [Exceedance]

    /// Checks the rules footstepd reports on: WHO night LAFmax, and the Korean
    /// inter-floor impact-noise standard (1-minute LAeq by day/night; LAFmax
    /// three or more times in an hour by day/night). Day is 06:00–22:00.
    public static func standardChecks(
        events: [ReportEvent], levels: [ReportLevelInterval], scope: ReportScope
    ) -> [RuleCheck] {
        let calendar = scope.calendar
        let unit = scope.levelUnit
        let inScope = events.filter { $0.timestamp >= scope.from && $0.timestamp < scope.to }
        let levelsInScope = levels.filter { $0.start >= scope.from && $0.start < scope.to }
        func isNight(_ date: Date) -> Bool {
            let hour = calendar.component(.hour, from: date)
            return hour >= 22 || hour < 6
        }
        func inQuietHours(_ date: Date) -> Bool {
            scope.quietHours.contains(minute: EvidenceStatistics.minuteOfDay(date, calendar))
        }

        let who = RuleCheck(
            name: "WHO night noise (LAFmax)",
            threshold: "event LAFmax above 45 \(unit) indoors during quiet hours \(scope.quietHours)",
            exceedances: inScope.filter { inQuietHours($0.timestamp) && $0.laMax > 45 }.map { Exceedance(time: $0.timestamp, value: $0.laMax) })

        let minuteLAeq = RuleCheck(
            name: "Korean inter-floor standard, 1-minute LAeq",
            threshold: "1-minute LAeq above 39 \(unit) by day (06–22) or 34 at night (22–06)",
            exceedances: levelsInScope.filter { $0.laeq > (isNight($0.start) ? 34 : 39) }.map { Exceedance(time: $0.start, value: $0.laeq) })

        var perHour: [Date: Int] = [:]
        for event in inScope where event.laMax > (isNight(event.timestamp) ? 52 : 57) {
            let hour = calendar.dateInterval(of: .hour, for: event.timestamp)!.start
            perHour[hour, default: 0] += 1
        }
        let maxRule = RuleCheck(
            name: "Korean inter-floor standard, LAFmax",
            threshold: "LAFmax above 57 \(unit) by day or 52 at night, three or more times in one hour",
            exceedances: perHour.filter { $0.value >= 3 }.sorted { $0.key < $1.key }.map { Exceedance(time: $0.key, value: Double($0.value)) })
        return [who, minuteLAeq, maxRule]
    }
}
