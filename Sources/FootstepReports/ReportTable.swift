import FootstepCore
import Foundation

/// A table of the report as text cells, rendered by the PDF and the HTML renderer alike.
struct ReportTable {
    struct Column {
        var title: String
        /// Relative width in the PDF.
        var weight: Double
        var numeric: Bool

        init(_ title: String, _ weight: Double = 1, numeric: Bool = true) {
            self.title = title
            self.weight = weight
            self.numeric = numeric
        }
    }

    var columns: [Column]
    var rows: [[String]]
    /// Rows to highlight (e.g. nights with rule exceedances).
    var highlighted: Set<Int> = []
    /// The column whose cells become links in the HTML (the event list's clip column).
    var linkColumn: Int?
    /// Link targets by row, for `linkColumn`.
    var links: [Int: String] = [:]
}

extension ReportDocument {
    /// The big numbers at the top of the first page: (value, label).
    var keyFigures: [(value: String, label: String)] {
        let s = statistics
        var figures = [
            ("\(s.footsteps)", "footsteps"), ("\(s.eventsInQuietHours)", "events in quiet hours"),
            ("\(s.otherEvents)", "other impacts"), ("\(s.disturbedNights) / \(s.recordedNights)", "recorded nights disturbed"),
        ]
        if let loudest = events.map(\.laMax).max() { figures.append((String(format: "%.1f", loudest), "loudest, \(scope.levelUnit)")) }
        return figures
    }

    /// Label/value lines of the summary section.
    var summaryFacts: [(label: String, value: String)] {
        let s = statistics
        let clock = clock
        var facts: [(String, String)] = []
        facts.append(("Footsteps by type", ReportColour.typeOrder.map { "\($0.rawValue) \(s.footstepsByType[$0, default: 0])" }.joined(separator: ", ")))
        facts.append(("Events by kind", "footstep \(s.footsteps), other \(s.otherEvents), total \(s.totalEvents)"))
        facts.append(("In quiet hours", "\(s.footstepsInQuietHours) footsteps, \(s.eventsInQuietHours) events (\(scope.quietHours))"))
        if let peak = s.peakHour { facts.append(("Busiest hour of day", String(format: "%02d:00–%02d:00 (%d footsteps over the period)", peak, (peak + 1) % 24, s.footstepsByHour[peak]))) }
        if !s.busiestHours.isEmpty {
            facts.append(("Busiest clock hours", s.busiestHours.map { "\(clock.dateTime($0.start).prefix(16)) (\($0.footsteps))" }.joined(separator: ", ")))
        }
        let b = s.bouts
        if b.count > 0 {
            var text = "\(b.count) (\(b.walking) walking, \(b.running) running), \(b.steps) steps"
            if let longest = b.longest {
                text += String(format: "; longest %d steps over %.0f s at %@", longest.steps, longest.seconds, String(clock.dateTime(longest.start).prefix(16)))
            }
            if let cadence = b.meanCadence { text += String(format: "; mean cadence %.2f steps/s", cadence) }
            facts.append(("Walking/running bouts", text))
        } else {
            facts.append(("Walking/running bouts", "none recorded"))
        }
        if let levels = s.levels {
            facts.append(("Levels over the period", String(format: "LAeq %.1f, LCeq %.1f, LAFmax %.1f, LA90 %.1f (%@; %.1f h measured)", levels.laeq, levels.lceq, levels.lafMax, levels.la90, scope.calibrationLabel, levels.seconds / 3600)))
        } else {
            facts.append(("Levels over the period", "no level data"))
        }
        return facts
    }

    /// Whether any rule counted per night exceeded on `date`.
    private func whoCount(_ date: String) -> String {
        guard let who = rules.first(where: { $0.rule == ReportRule.who }) else { return "" }
        return who.judgeable ? String(who.perNight[date, default: 0]) : "n/a"
    }

    /// One row per night.
    var nightTable: ReportTable {
        let clock = clock
        var table = ReportTable(
            columns: [
                .init("Night of", 1.3, numeric: false), .init("Steps", 0.8), .init("Other", 0.8), .init("First", 1),
                .init("Last", 1), .init("Busiest hour", 1.4), .init("Loudest", 1), .init("LAeq", 0.8),
                .init("LCeq", 0.8), .init("LA90", 0.8), .init("WHO >45", 0.9),
            ], rows: [])
        if coverage != nil { table.columns.insert(.init("Recorded", 1.9), at: 1) }
        for (index, night) in statistics.nights.enumerated() {
            var row: [String]
            if night.notRecorded {
                // "not recorded" goes in the Recorded column when there is one (the Steps column is too narrow for it).
                row = [night.date + (night.partial ? "*" : "")] + Array(repeating: "–", count: 10)
                if coverage == nil { row[1] = "not recorded" }
            } else {
                let busiest = night.busiestHour.map { "\(clock.time($0.start).prefix(5)) (\($0.footsteps))" } ?? "–"
                row = [
                    night.date + (night.partial ? "*" : ""), "\(night.footsteps)", "\(night.otherEvents)",
                    night.firstEvent.map { clock.time($0) } ?? "–", night.lastEvent.map { clock.time($0) } ?? "–", busiest,
                    level(night.loudestLAFmax), level(night.levels?.laeq), level(night.levels?.lceq), level(night.levels?.la90),
                    whoCount(night.date),
                ]
            }
            if coverage != nil {
                let recorded = night.notRecorded
                    ? "not recorded"
                    : night.recordedSeconds.map { ReportDuration.text($0) + (night.windowSeconds.map { " / " + ReportDuration.text($0) } ?? "") } ?? "–"
                row.insert(recorded, at: 1)
            }
            table.rows.append(row)
            if night.events > 0 { table.highlighted.insert(index) }
        }
        return table
    }

    /// The loudest footsteps (up to 10) by LAFmax: beside the loudest events,
    /// which are often knocks and slams.
    var loudestFootstepTable: ReportTable? {
        let steps = events.filter { $0.kind == .footstep }.sorted { $0.laMax != $1.laMax ? $0.laMax > $1.laMax : $0.timestamp < $1.timestamp }
        guard !steps.isEmpty else { return nil }
        let clock = clock
        var table = ReportTable(
            columns: [
                .init("#", 0.6), .init("When", 1.8, numeric: false), .init("Type", 1.2, numeric: false), .init("Conf.", 0.6),
                .init("LAFmax", 0.8), .init("LCFmax", 0.8), .init("Notes", 2.4, numeric: false),
            ], rows: [])
        for event in steps.prefix(10) {
            table.rows.append([
                event.id.map(String.init) ?? "", clock.dateTime(event.timestamp), event.typeLabel,
                ReportNumber.fixed(event.confidence, 2), level(event.laMax), level(event.lcMax), event.notes,
            ])
        }
        return table
    }

    /// Coverage in words: how much of the quiet hours was recorded, and what interrupted it.
    var coverageStatement: String? {
        guard let coverage else { return nil }
        let nights = statistics.nights
        let window = nights.reduce(0) { $0 + ($1.windowSeconds ?? 0) }
        let recorded = nights.reduce(0) { $0 + ($1.recordedSeconds ?? 0) }
        var text: String
        if window > 0 {
            text = "Recorded \(ReportDuration.text(recorded)) of the \(ReportDuration.text(window)) of quiet hours in the period"
                + String(format: " (%.0f %%)", 100 * recorded / window)
        } else {
            text = "Recorded \(ReportDuration.text(coverage.recordedSeconds(from: scope.from, to: scope.to))) in the period"
        }
        let missing = nights.filter(\.notRecorded).count
        if missing > 0 { text += "; \(missing) night\(missing == 1 ? "" : "s") not recorded at all (their counts say nothing)" }
        text += "."
        let gapSeconds = coverage.gaps.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        if !coverage.gaps.isEmpty {
            text += " \(coverage.gaps.count) gap\(coverage.gaps.count == 1 ? "" : "s") without audio inside sessions (\(ReportDuration.text(gapSeconds)) in all)."
        }
        let interrupted = coverage.interrupted.count
        if interrupted > 0 {
            text += " \(interrupted) session\(interrupted == 1 ? " was" : "s were") interrupted: footstepd stopped without closing \(interrupted == 1 ? "it" : "them") (a crash, a power cut or a kill); the audio up to the interruption is kept."
        }
        let stopped = coverage.stops(until: scope.to).filter { !$0.interrupted }
        if !stopped.isEmpty {
            let seconds = stopped.reduce(0) { $0 + $1.seconds(from: scope.from, to: scope.to) }
            text += " Recording was stopped \(stopped.count) time\(stopped.count == 1 ? "" : "s") (\(ReportDuration.text(seconds)) of the period without a session);"
                + " each stop is listed below with its reason, and none is counted as recorded."
        }
        return text
    }

    /// Gaps, interruptions and stops between sessions, in time order.
    var outageTable: ReportTable? {
        guard let coverage, !(coverage.gaps.isEmpty && coverage.stops(until: scope.to).isEmpty) else { return nil }
        let clock = clock
        var rows: [(Date, [String])] = coverage.gaps.map { gap in
            (gap.start, [
                clock.dateTime(gap.start), clock.dateTime(gap.end), ReportDuration.text(gap.end.timeIntervalSince(gap.start)),
                "session \(gap.sessionId): \(gap.reason)",
            ])
        }
        for stop in coverage.stops(until: scope.to) {
            let what = stop.interrupted
                ? "session \(stop.sessionId) interrupted (\(stop.reason))"
                : "session \(stop.sessionId) ended: \(stop.reason)"
            rows.append((stop.start, [
                clock.dateTime(stop.start), stop.end.map { clock.dateTime($0) } ?? "–",
                stop.end.map { ReportDuration.text($0.timeIntervalSince(stop.start)) } ?? "–",
                what + (stop.nextSessionId.map { "; session \($0) started" } ?? ""),
            ]))
        }
        return ReportTable(
            columns: [.init("From", 1.6, numeric: false), .init("To", 1.6, numeric: false), .init("Length", 1), .init("What", 4, numeric: false)],
            rows: rows.sorted { $0.0 < $1.0 }.map(\.1))
    }

    /// Label/value lines of the integrity section.
    var integrityFacts: [(label: String, value: String)] {
        guard let integrity else { return [] }
        let verdict = integrity.intact
            ? "intact: \(integrity.checkedEvents) events, every hash and link checked"
            : "NOT intact: \(integrity.problems) problem(s) in \(integrity.checkedEvents) events (run the command below for details)"
        return [
            ("Hash chain", verdict),
            ("Chain head", "\(integrity.headHash) (event \(integrity.headEventId))"),
            ("Verified at", "\(clock.dateTime(integrity.verifiedAt)) (\(scope.timeZone.identifier))"),
            ("Check again with", integrity.command),
        ]
    }

    /// One row per rule.
    var ruleTable: ReportTable {
        let clock = clock
        var table = ReportTable(
            columns: [.init("Rule", 2.2, numeric: false), .init("Threshold", 3, numeric: false), .init("Result", 2.4, numeric: false), .init("When (first)", 2.6, numeric: false)],
            rows: [])
        for (index, check) in rules.enumerated() {
            let when: String
            if check.rule.countPerNight && !check.perNight.isEmpty {
                when = check.perNight.sorted { $0.key < $1.key }.prefix(6).map { "night of \($0.key): \($0.value)" }.joined(separator: "; ")
            } else {
                when = check.exceedances.prefix(4).map { String(clock.dateTime($0.time).prefix(16)) }.joined(separator: "; ")
            }
            table.rows.append([check.name, check.threshold, check.verdict, when])
            if !check.exceedances.isEmpty || !check.judgeable { table.highlighted.insert(index) }
        }
        return table
    }

    /// The event list (time, kind/type, levels, notes, clip file name): the HTML's,
    /// whose clip column links the files.
    var eventTable: ReportTable { eventTable(clipNames: true) }

    /// The event list one line per event (the PDF's): the clip column says
    /// whether a clip exists; its file is linked from the HTML and in the bundle.
    func eventTable(clipNames: Bool) -> ReportTable {
        let clock = clock
        var table = ReportTable(
            columns: [
                .init("#", 0.6), .init("Date", 1.1, numeric: false), .init("Time", 1.1, numeric: false),
                .init("Kind / type", 1.4, numeric: false), .init("Conf.", 0.6), .init("LAFmax", 0.8), .init("LCFmax", 0.8),
                .init("Notes", clipNames ? 2.6 : 3.6, numeric: false), .init("Clip", clipNames ? 1.5 : 0.5, numeric: false),
            ], rows: [], linkColumn: 8)
        table.rows = listedEvents.map { event in
            [
                event.id.map(String.init) ?? "", clock.dayKey(event.timestamp), clock.time(event.timestamp, fraction: true),
                event.typeLabel, ReportNumber.fixed(event.confidence, 2),
                level(event.laMax), level(event.lcMax), event.notes, event.clip.map { clipNames ? ($0.path as NSString).lastPathComponent : "yes" } ?? "",
            ]
        }
        return table
    }

    /// The nights whose worst hour the PDF prints minute by minute: every night
    /// with level data, or for a longer period the seven whose worst hour had
    /// the most footsteps (night order). The HTML and JSON reports give every night's.
    public var worstHourNights: [EvidenceStatistics.Night] {
        let nights = nightsWithWorstHour
        guard nights.count > Self.worstHourNightsInPDF else { return nights }
        let chosen = Set(
            nights.enumerated().sorted {
                ($0.element.worstHour!.footsteps, $0.element.worstHour!.laeq) > ($1.element.worstHour!.footsteps, $1.element.worstHour!.laeq)
            }.prefix(Self.worstHourNightsInPDF).map(\.offset))
        return nights.enumerated().filter { chosen.contains($0.offset) }.map(\.element)
    }

    /// The recorded nights with level data, each with its worst hour (HTML and JSON list them all).
    var nightsWithWorstHour: [EvidenceStatistics.Night] {
        statistics.nights.filter { $0.worstHour != nil && !$0.notRecorded }
    }

    /// At most this many worst-hour tables in the PDF.
    static let worstHourNightsInPDF = 7

    /// One row per level interval (a minute) of a night's worst hour.
    func worstHourTable(_ hour: EvidenceStatistics.WorstHour) -> ReportTable {
        let clock = clock
        var table = ReportTable(
            columns: [
                .init("Minute", 1, numeric: false), .init("LAeq", 0.8), .init("LCeq", 0.8), .init("LAFmax", 0.8),
                .init("LCFmax (events)", 1.2), .init("Footsteps", 0.9), .init("Other", 0.8),
            ], rows: [])
        for (index, minute) in hour.minutes.enumerated() {
            table.rows.append([
                String(clock.time(minute.start).prefix(5)), level(minute.laeq), level(minute.lceq), level(minute.lafMax),
                level(minute.eventLCFmax), "\(minute.footsteps)", "\(minute.otherEvents)",
            ])
            if minute.footsteps > 0 { table.highlighted.insert(index) }
        }
        return table
    }

    /// `Night of 2026-11-20: 01:00–02:00, 37 footsteps, LAeq 31.2` for a worst-hour table's heading.
    public func worstHourTitle(_ night: EvidenceStatistics.Night, _ hour: EvidenceStatistics.WorstHour) -> String {
        let from = clock.time(hour.start).prefix(5)
        let to = clock.time(hour.start.addingTimeInterval(3600)).prefix(5)
        return "Night of \(night.date): \(from)–\(to), \(hour.footsteps) footstep\(hour.footsteps == 1 ? "" : "s"), LAeq \(level(hour.laeq)) \(scope.levelUnit)"
    }

    /// Levels per clock hour.
    var hourlyLevelTable: ReportTable {
        let clock = clock
        var table = ReportTable(
            columns: [.init("Hour", 1.6, numeric: false), .init("LAeq", 1), .init("LCeq", 1), .init("LAFmax", 1), .init("LA90", 1), .init("Minutes", 1)],
            rows: [])
        table.rows = statistics.hourlyLevels.map {
            [String(clock.dateTime($0.start).prefix(16)), level($0.laeq), level($0.lceq), level($0.lafMax), level($0.la90), String(format: "%.0f", $0.seconds / 60)]
        }
        return table
    }

    /// Label lines for one of the loudest events.
    func loudestLines(_ item: LoudestEvent, rank: Int) -> [String] {
        let event = item.event
        let clock = clock
        var lines = [
            "\(rank). \(clock.dateTime(event.timestamp, fraction: true))",
            "\(event.kind == .footstep ? "footstep, " + event.type.rawValue : "other impact"), confidence \(String(format: "%.2f", event.confidence))",
            "LAFmax \(level(event.laMax)) \(scope.levelUnit)" + (event.lcMax.map { String(format: ", LCFmax %.1f", $0) } ?? ""),
        ]
        if let clip = event.clip {
            lines.append("clip \((clip.path as NSString).lastPathComponent)")
            if let sha = clip.sha256 { lines.append("SHA-256 \(sha.prefix(16))…") }
        } else if item.audio == nil {
            lines.append("no clip kept")
        }
        if !event.notes.isEmpty { lines.append("note: \(event.notes)") }
        return lines
    }
}

/// Durations as a person reads them: "45 s", "1 min 30 s", "12 min", "7 h 52 min".
public enum ReportDuration {
    public static func text(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total) s" }
        let minutes = total / 60
        if minutes < 10, total % 60 != 0 { return "\(minutes) min \(total % 60) s" }
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

extension ReportDocument {
    /// Whether the report's events come from a store, where they can be reviewed (an analysed recording's cannot).
    public var reviewable: Bool { (events.first ?? rejected.first)?.id != nil }

    /// Whether no event of the period has a review.
    public var nobodyReviewed: Bool { rejected.isEmpty && !events.contains { $0.review != nil } }

    /// What the review section says first: how much of the period a person listened to.
    public var reviewStatement: String {
        let reviewed = events.lazy.filter { $0.review != nil }.count + rejected.count
        let total = events.count + rejected.count
        guard !nobodyReviewed else {
            return "Not reviewed: nobody has listened to these events yet (footstepctl events confirm, reject, relabel). "
                + "Every event counts as detected."
        }
        return "\(reviewed) of \(total) events were reviewed by a person who listened to them. "
            + "Rejected events (\(rejected.count) in the period) are left out of every count, rule check, chart and "
            + "list above and are listed below with their reasons; they stay in the evidence chain."
    }

    /// One row per night: confirmed, rejected and unreviewed events, and who reviewed them.
    var reviewTable: ReportTable {
        var table = ReportTable(
            columns: [
                .init("Night of", 1.2, numeric: false), .init("Confirmed", 0.9), .init("Rejected", 0.9),
                .init("Not reviewed", 1), .init("Review", 4, numeric: false),
            ], rows: [])
        for (index, night) in statistics.nights.enumerated() {
            let review = nightReviews[index]
            table.rows.append([
                night.date + (night.partial ? " *" : ""), String(review.confirmed), String(review.rejected),
                String(review.unreviewed),
                review.isUnreviewed
                    ? (review.events == 0 ? "no events" : "not reviewed")
                    : "by " + review.reviewers.joined(separator: ", "),
            ])
            if review.isUnreviewed && review.events > 0 { table.highlighted.insert(index) }
        }
        return table
    }

    /// The events a review rejected, with who rejected them and why (nil when there are none).
    var rejectedTable: ReportTable? {
        guard !rejected.isEmpty else { return nil }
        let clock = clock
        var table = ReportTable(
            columns: [
                .init("#", 0.6), .init("Date", 1.1, numeric: false), .init("Time", 1.1, numeric: false),
                .init("Kind / type", 1.4, numeric: false), .init("LAFmax", 0.8), .init("Reason", 3, numeric: false),
                .init("Rejected by", 1.2, numeric: false),
            ], rows: [])
        table.rows = rejected.map { event in
            [
                event.id.map(String.init) ?? "", clock.dayKey(event.timestamp), clock.time(event.timestamp, fraction: true),
                event.typeLabel, level(event.laMax), event.review?.reason ?? "", event.review?.reviewer ?? "",
            ]
        }
        return table
    }
}
