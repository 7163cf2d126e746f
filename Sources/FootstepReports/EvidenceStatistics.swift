import FootstepCore
import Foundation

/// The figures of an evidence report, computed once from events, level intervals
/// and bouts for one scope (date range, optional session, time zone, quiet hours).
///
/// Counts cover events with onsets in `[scope.from, scope.to)`. Hours and days are
/// local to `scope.timeZone`. A night is the quiet-hours window that starts on its
/// date; nights that overlap the scope only in part are included and marked `partial`.
public struct EvidenceStatistics: Sendable {
    public var scope: ReportScope
    /// Events of kind footstep / other.
    public var footsteps: Int
    public var otherEvents: Int
    /// Events per kind (footstep, other).
    public var eventsByKind: [EventKind: Int]
    /// Footsteps per type.
    public var footstepsByType: [FootstepType: Int]
    /// Footsteps per local hour of day (24 entries).
    public var footstepsByHour: [Int]
    /// Footsteps per local hour of day (24 entries) for each type.
    public var footstepsByHourAndType: [FootstepType: [Int]]
    /// Every local day of the scope, in order, with its counts (days without events too).
    public var days: [DayCount]
    /// The local hour of day with the most footsteps (nil without any).
    public var peakHour: Int?
    /// The clock hours with the most footsteps, busiest first (at most 5).
    public var busiestHours: [BusyHour]
    /// Footsteps / all events inside the quiet hours.
    public var footstepsInQuietHours: Int
    public var eventsInQuietHours: Int
    /// The nights (quiet-hours windows) overlapping the scope, in order.
    public var nights: [Night]
    /// Levels over the whole scope (nil without level data).
    public var levels: LevelSummary?
    /// Levels per local clock hour that has level data, in order.
    public var hourlyLevels: [LevelSummary]
    /// Gait bouts starting in the scope.
    public var bouts: BoutSummary

    /// Computes every figure. `events`, `levels` and `bouts` may hold rows outside the scope
    /// (they are ignored) and need not be sorted.
    public init(events: [ReportEvent], levels: [ReportLevelInterval], bouts: [ReportBout] = [], scope: ReportScope) {
        self.scope = scope
        let clock = LocalClock(timeZone: scope.timeZone, from: scope.from, to: scope.to)
        let inScope = events.filter { scope.contains($0.timestamp) }.sorted { $0.timestamp < $1.timestamp }
        let levelsInScope = levels.filter { scope.contains($0.start) }.sorted { $0.start < $1.start }
        let quiet = scope.quietHours

        var byKind: [EventKind: Int] = [:]
        var byType: [FootstepType: Int] = [:]
        var byHour = [Int](repeating: 0, count: 24)
        var byHourAndType: [FootstepType: [Int]] = [:]
        for type in FootstepType.allCases { byHourAndType[type] = [Int](repeating: 0, count: 24) }
        var perDay: [Int: (Int, Int)] = [:]
        var perClockHour: [Date: Int] = [:]
        var quietSteps = 0, quietEvents = 0
        for event in inScope {
            byKind[event.kind, default: 0] += 1
            let minute = clock.minuteOfDay(event.timestamp)
            let day = clock.dayNumber(event.timestamp)
            let isQuiet = quiet.contains(minute: minute)
            if isQuiet { quietEvents += 1 }
            guard event.kind == .footstep else {
                perDay[day, default: (0, 0)].1 += 1
                continue
            }
            byType[event.type, default: 0] += 1
            byHour[minute / 60] += 1
            byHourAndType[event.type]![minute / 60] += 1
            perDay[day, default: (0, 0)].0 += 1
            perClockHour[clock.hourStart(event.timestamp), default: 0] += 1
            if isQuiet { quietSteps += 1 }
        }
        eventsByKind = byKind
        footsteps = byKind[.footstep, default: 0]
        otherEvents = byKind[.other, default: 0]
        footstepsByType = byType
        footstepsByHour = byHour
        footstepsByHourAndType = byHourAndType
        footstepsInQuietHours = quietSteps
        eventsInQuietHours = quietEvents
        peakHour = footsteps == 0 ? nil : byHour.indices.max { byHour[$0] < byHour[$1] }
        busiestHours = perClockHour.map { BusyHour(start: $0.key, footsteps: $0.value) }
            .sorted { $0.footsteps != $1.footsteps ? $0.footsteps > $1.footsteps : $0.start < $1.start }
            .prefix(5).map { $0 }
        let lastDay = clock.dayNumber(scope.to.addingTimeInterval(-0.001))
        days = (clock.dayNumber(scope.from)...max(clock.dayNumber(scope.from), lastDay)).map { day in
            let counts = perDay[day, default: (0, 0)]
            return DayCount(date: LocalClock.dayKey(dayNumber: day), footsteps: counts.0, other: counts.1)
        }

        self.levels = LevelSummary(start: scope.from, intervals: levelsInScope[...])
        var hourly: [LevelSummary] = []
        var index = levelsInScope.startIndex
        while index < levelsInScope.endIndex {
            let hour = clock.hourStart(levelsInScope[index].start)
            var end = index
            while end < levelsInScope.endIndex, clock.hourStart(levelsInScope[end].start) == hour { end += 1 }
            hourly.append(LevelSummary(start: hour, intervals: levelsInScope[index..<end])!)
            index = end
        }
        hourlyLevels = hourly

        let boutsInScope = bouts.filter { scope.contains($0.start) }.sorted { $0.start < $1.start }
        self.bouts = BoutSummary(boutsInScope)
        nights = Self.nights(events: inScope, levels: levelsInScope, bouts: boutsInScope, scope: scope, clock: clock)
    }

    /// All events in the scope (footsteps and other).
    public var totalEvents: Int { footsteps + otherEvents }

    /// Nights with some audio (all nights when coverage is not known).
    public var recordedNights: Int { nights.filter { !$0.notRecorded }.count }

    /// Nights with at least one event.
    public var disturbedNights: Int { nights.filter { $0.footsteps + $0.otherEvents > 0 }.count }

    /// Footsteps per local day, keyed yyyy-MM-dd, in date order (days without footsteps too).
    public var footstepsByDay: [(date: String, count: Int)] { days.map { ($0.date, $0.footsteps) } }

    // MARK: Nights

    /// The quiet-hours windows overlapping the scope, with their figures (`events` etc. sorted).
    static func nights(
        events: [ReportEvent], levels: [ReportLevelInterval], bouts: [ReportBout], scope: ReportScope,
        clock: LocalClock
    ) -> [Night] {
        let quiet = scope.quietHours
        let wraps = quiet.end <= quiet.start
        var nights: [Night] = []
        for day in (clock.dayNumber(scope.from) - 1)...clock.dayNumber(scope.to) {
            let start = clock.instant(dayNumber: day, minutes: quiet.start)
            let end = clock.instant(dayNumber: wraps ? day + 1 : day, minutes: quiet.end)
            guard start < scope.to, end > scope.from else { continue }
            let nightEvents = slice(events, from: start, to: end, time: \.timestamp)
            let nightLevels = slice(levels, from: start, to: end, time: \.start)
            let steps = nightEvents.filter { $0.kind == .footstep }
            var perHour: [Date: Int] = [:]
            for step in steps { perHour[clock.hourStart(step.timestamp), default: 0] += 1 }
            let busiest = perHour.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }
            nights.append(
                Night(
                    date: LocalClock.dayKey(dayNumber: day), start: start, end: end,
                    partial: start < scope.from || end > scope.to, footsteps: steps.count,
                    otherEvents: nightEvents.count - steps.count, firstEvent: nightEvents.first?.timestamp,
                    lastEvent: nightEvents.last?.timestamp,
                    busiestHour: busiest.map { BusyHour(start: $0.key, footsteps: $0.value) },
                    loudestLAFmax: nightEvents.map(\.laMax).max(),
                    bouts: bouts.filter { $0.start >= start && $0.start < end }.count,
                    levels: LevelSummary(start: start, intervals: nightLevels),
                    worstHour: worstHour(events: nightEvents, levels: nightLevels, clock: clock)))
        }
        return nights
    }

    /// The night's worst clock hour, minute by minute: the hour with the most
    /// footsteps (ties: the higher LAeq), or without footsteps the highest LAeq.
    /// Nil when the night has no level data.
    static func worstHour(events: ArraySlice<ReportEvent>, levels: ArraySlice<ReportLevelInterval>, clock: LocalClock)
        -> WorstHour?
    {
        var levelsByHour: [Date: [ReportLevelInterval]] = [:]
        for interval in levels { levelsByHour[clock.hourStart(interval.start), default: []].append(interval) }
        var stepsByHour: [Date: Int] = [:]
        for event in events where event.kind == .footstep { stepsByHour[clock.hourStart(event.timestamp), default: 0] += 1 }
        let ranked = levelsByHour.compactMap { hour, intervals -> (hour: Date, steps: Int, laeq: Double)? in
            guard let laeq = Decibel.energyAverage(intervals.map { ($0.laeq, $0.seconds) }) else { return nil }
            return (hour, stepsByHour[hour] ?? 0, laeq)
        }
        guard let worst = ranked.max(by: { ($0.steps, $0.laeq, $1.hour) < ($1.steps, $1.laeq, $0.hour) }) else { return nil }
        let end = worst.hour.addingTimeInterval(3600)
        let hourEvents = events.filter { $0.timestamp >= worst.hour && $0.timestamp < end }
        let minutes = levelsByHour[worst.hour]!.map { interval in
            let inside = hourEvents.filter {
                $0.timestamp >= interval.start && $0.timestamp < interval.start.addingTimeInterval(max(interval.seconds, 1))
            }
            let steps = inside.filter { $0.kind == .footstep }.count
            return WorstHour.Minute(
                start: interval.start, seconds: interval.seconds, laeq: interval.laeq, lceq: interval.lceq,
                lafMax: interval.lafMax, eventLCFmax: inside.compactMap(\.lcMax).max(), footsteps: steps,
                otherEvents: inside.count - steps)
        }
        return WorstHour(start: worst.hour, footsteps: worst.steps, laeq: worst.laeq, minutes: minutes)
    }

    /// The rows of a time-sorted array with times in `[from, to)` (binary search).
    static func slice<Row>(_ rows: [Row], from: Date, to: Date, time: (Row) -> Date) -> ArraySlice<Row> {
        func lowerBound(_ date: Date) -> Int {
            var low = 0, high = rows.count
            while low < high {
                let middle = (low + high) / 2
                if time(rows[middle]) < date { low = middle + 1 } else { high = middle }
            }
            return low
        }
        return rows[lowerBound(from)..<max(lowerBound(from), lowerBound(to))]
    }
}

extension EvidenceStatistics {
    /// Counts of one local day.
    public struct DayCount: Sendable, Equatable {
        /// yyyy-MM-dd.
        public var date: String
        public var footsteps: Int
        public var other: Int
    }

    /// A clock hour and its footsteps (peak activity times).
    public struct BusyHour: Sendable, Equatable {
        public var start: Date
        public var footsteps: Int
    }

    /// A night: the quiet-hours window that starts on `date` (local, yyyy-MM-dd).
    public struct Night: Sendable, Equatable {
        public var date: String
        public var start: Date
        public var end: Date
        /// The window reaches outside the scope (only part of it is counted).
        public var partial: Bool
        public var footsteps: Int
        public var otherEvents: Int
        public var firstEvent: Date?
        public var lastEvent: Date?
        /// The clock hour of the night with the most footsteps.
        public var busiestHour: BusyHour?
        /// Highest event LAFmax in the night (nil without events).
        public var loudestLAFmax: Double?
        /// Gait bouts starting in the night.
        public var bouts: Int
        /// Levels of the night (nil without level data).
        public var levels: LevelSummary?
        /// Seconds of the night (within the scope) with audio; nil when coverage is not known.
        public var recordedSeconds: Double?
        /// Seconds of the night within the scope.
        public var windowSeconds: Double?
        /// The night's worst hour minute by minute (nil without level data).
        public var worstHour: WorstHour?

        /// Footsteps and other events.
        public var events: Int { footsteps + otherEvents }
        /// True when nothing of the night was recorded: its counts say nothing.
        public var notRecorded: Bool { recordedSeconds.map { $0 < 1 } ?? false }
    }

    /// A night's worst clock hour (``EvidenceStatistics/worstHour(events:levels:clock:)``)
    /// with one row per level interval (a minute by default).
    public struct WorstHour: Sendable, Equatable {
        /// One level interval of the hour and the events in it.
        public struct Minute: Sendable, Equatable {
            public var start: Date
            public var seconds: Double
            public var laeq: Double
            public var lceq: Double
            public var lafMax: Double
            /// The highest LCFmax of the events in the minute (LCFmax is measured per event,
            /// not per minute); nil without events.
            public var eventLCFmax: Double?
            public var footsteps: Int
            public var otherEvents: Int
        }

        /// The hour's first instant.
        public var start: Date
        /// Footsteps in the hour.
        public var footsteps: Int
        /// Energy average of the hour's intervals.
        public var laeq: Double
        /// In time order.
        public var minutes: [Minute]
    }

    /// Levels over a stretch of time from its level intervals.
    public struct LevelSummary: Sendable, Equatable {
        public var start: Date
        /// Measured seconds (sum of the intervals).
        public var seconds: Double
        /// Energy average of the intervals' LAeq / LCeq (time-weighted).
        public var laeq: Double
        public var lceq: Double
        /// Highest interval LAFmax.
        public var lafMax: Double
        /// Background: the time-weighted mean of the intervals' LA90 (an LA90 over a longer
        /// stretch cannot be recovered exactly from per-minute figures).
        public var la90: Double

        /// Nil when `intervals` is empty or has no duration.
        init?(start: Date, intervals: ArraySlice<ReportLevelInterval>) {
            let seconds = intervals.reduce(0) { $0 + $1.seconds }
            guard seconds > 0,
                let laeq = Decibel.energyAverage(intervals.map { ($0.laeq, $0.seconds) }),
                let lceq = Decibel.energyAverage(intervals.map { ($0.lceq, $0.seconds) })
            else { return nil }
            self.start = start
            self.seconds = seconds
            self.laeq = laeq
            self.lceq = lceq
            lafMax = intervals.map(\.lafMax).max()!
            la90 = intervals.reduce(0) { $0 + $1.la90 * $1.seconds } / seconds
        }
    }

    /// Gait bouts in the scope.
    public struct BoutSummary: Sendable, Equatable {
        public var count: Int
        public var walking: Int
        public var running: Int
        /// Steps in all bouts.
        public var steps: Int
        /// The bout with the most steps (the earliest of equals).
        public var longest: ReportBout?
        /// Mean cadence over all bouts, steps per second (weighted by steps).
        public var meanCadence: Double?

        init(_ bouts: [ReportBout]) {
            count = bouts.count
            walking = bouts.filter { $0.kind == "walking" }.count
            running = bouts.filter { $0.kind == "running" }.count
            steps = bouts.reduce(0) { $0 + $1.steps }
            longest = bouts.reduce(nil) { best, bout in (best.map { bout.steps > $0.steps } ?? true) ? bout : best }
            meanCadence = steps > 0 ? bouts.reduce(0) { $0 + $1.cadence * Double($1.steps) } / Double(steps) : nil
        }
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
