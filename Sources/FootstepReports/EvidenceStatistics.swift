import FootstepCore
import Foundation

/// The figures of an evidence report, computed from events and level
/// intervals for one scope (date range, time zone, quiet hours).
public struct EvidenceStatistics: Sendable {
    /// A night: the quiet-hours window that starts on `date` (local, yyyy-MM-dd).
    public struct Night: Sendable, Equatable {
        public var date: String
        public var start: Date
        public var end: Date
        public var footsteps: Int
        public var otherEvents: Int
        public var firstEvent: Date?
        public var lastEvent: Date?
        /// Highest event LAFmax in the night (nil without events).
        public var loudestLAFmax: Double?
        /// Energy average of the level intervals in the night (nil without levels).
        public var laeq: Double?
        public var lceq: Double?
        /// Mean LA90 (background) of the level intervals in the night.
        public var la90: Double?
    }

    public var scope: ReportScope
    public var footsteps: Int
    public var otherEvents: Int
    public var footstepsByType: [FootstepType: Int]
    /// Footsteps per local hour of day (24 entries).
    public var footstepsByHour: [Int]
    /// Footsteps per local day, keyed yyyy-MM-dd, in date order.
    public var footstepsByDay: [(date: String, count: Int)]
    /// The local hour with the most footsteps (nil without any).
    public var peakHour: Int?
    public var nights: [Night]
    /// Footsteps inside the quiet hours.
    public var footstepsInQuietHours: Int

    public init(events: [ReportEvent], levels: [ReportLevelInterval], scope: ReportScope) {
        self.scope = scope
        let calendar = scope.calendar
        let inScope = events.filter { $0.timestamp >= scope.from && $0.timestamp < scope.to }
        let steps = inScope.filter { $0.kind == .footstep }
        footsteps = steps.count
        otherEvents = inScope.count - steps.count
        footstepsByType = steps.reduce(into: [:]) { $0[$1.type, default: 0] += 1 }
        var hours = [Int](repeating: 0, count: 24)
        var days: [String: Int] = [:]
        var quiet = 0
        for step in steps {
            let hour = calendar.component(.hour, from: step.timestamp)
            hours[hour] += 1
            days[Self.dayKey(step.timestamp, calendar), default: 0] += 1
            if scope.quietHours.contains(minute: Self.minuteOfDay(step.timestamp, calendar)) { quiet += 1 }
        }
        footstepsByHour = hours
        footstepsByDay = days.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        peakHour = steps.isEmpty ? nil : hours.indices.max { hours[$0] < hours[$1] }
        footstepsInQuietHours = quiet
        nights = Self.nights(events: inScope, levels: levels, scope: scope)
    }

    /// The quiet-hours windows that start within the scope, with their figures.
    static func nights(events: [ReportEvent], levels: [ReportLevelInterval], scope: ReportScope) -> [Night] {
        let calendar = scope.calendar
        var nights: [Night] = []
        var day = calendar.startOfDay(for: scope.from)
        while day < scope.to {
            let start = day.addingTimeInterval(Double(scope.quietHours.start) * 60)
            var endDay = day
            if scope.quietHours.end <= scope.quietHours.start { endDay = calendar.date(byAdding: .day, value: 1, to: day)! }
            let end = endDay.addingTimeInterval(Double(scope.quietHours.end) * 60)
            let inNight = events.filter { $0.timestamp >= start && $0.timestamp < end }
            let steps = inNight.filter { $0.kind == .footstep }
            let nightLevels = levels.filter { $0.start >= start && $0.start < end }
            if start < scope.to, end > scope.from {
                nights.append(
                    Night(
                        date: dayKey(day, calendar), start: start, end: end, footsteps: steps.count,
                        otherEvents: inNight.count - steps.count, firstEvent: inNight.map(\.timestamp).min(),
                        lastEvent: inNight.map(\.timestamp).max(), loudestLAFmax: inNight.map(\.laMax).max(),
                        laeq: Decibel.energyAverage(nightLevels.map { ($0.laeq, $0.seconds) }),
                        lceq: Decibel.energyAverage(nightLevels.map { ($0.lceq, $0.seconds) }),
                        la90: nightLevels.isEmpty ? nil : nightLevels.map(\.la90).reduce(0, +) / Double(nightLevels.count)))
            }
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        return nights
    }

    static func dayKey(_ date: Date, _ calendar: Calendar) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    static func minuteOfDay(_ date: Date, _ calendar: Calendar) -> Int {
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return c.hour! * 60 + c.minute!
    }
}

/// Decibel arithmetic for reports.
public enum Decibel {
    /// The time-weighted energy average of (level, seconds) pairs; nil when empty.
    public static func energyAverage(_ values: [(level: Double, seconds: Double)]) -> Double? {
        let total = values.reduce(0) { $0 + $1.seconds }
        guard total > 0 else { return nil }
        let energy = values.reduce(0) { $0 + pow(10, $1.level / 10) * $1.seconds }
        return 10 * log10(energy / total)
    }
}
