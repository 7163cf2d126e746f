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
            ("\(s.otherEvents)", "other impacts"), ("\(s.disturbedNights) / \(s.nights.count)", "nights disturbed"),
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
        for (index, night) in statistics.nights.enumerated() {
            let busiest = night.busiestHour.map { "\(clock.time($0.start).prefix(5)) (\($0.footsteps))" } ?? "–"
            table.rows.append([
                night.date + (night.partial ? "*" : ""), "\(night.footsteps)", "\(night.otherEvents)",
                night.firstEvent.map { clock.time($0) } ?? "–", night.lastEvent.map { clock.time($0) } ?? "–", busiest,
                level(night.loudestLAFmax), level(night.levels?.laeq), level(night.levels?.lceq), level(night.levels?.la90),
                whoCount(night.date),
            ])
            if night.events > 0 { table.highlighted.insert(index) }
        }
        return table
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

    /// The event list (time, kind/type, levels, notes, clip file name).
    var eventTable: ReportTable {
        let clock = clock
        var table = ReportTable(
            columns: [
                .init("#", 0.6), .init("Date", 1.1, numeric: false), .init("Time", 1.1, numeric: false),
                .init("Kind / type", 1.4, numeric: false), .init("Conf.", 0.6), .init("LAFmax", 0.8), .init("LCFmax", 0.8),
                .init("Notes", 2.6, numeric: false), .init("Clip", 1.5, numeric: false),
            ], rows: [], linkColumn: 8)
        table.rows = listedEvents.map { event in
            [
                event.id.map(String.init) ?? "", clock.dayKey(event.timestamp), clock.time(event.timestamp, fraction: true),
                event.kind == .footstep ? event.type.rawValue : "other", ReportNumber.fixed(event.confidence, 2),
                level(event.laMax), level(event.lcMax), event.notes, event.clip.map { ($0.path as NSString).lastPathComponent } ?? "",
            ]
        }
        return table
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
