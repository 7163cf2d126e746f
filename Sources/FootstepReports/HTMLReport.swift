import FootstepCore
import Foundation

/// A self-contained HTML evidence report: summary, charts (inline SVG), a
/// table per night, rule checks and the event list. No external URLs.
public struct HTMLReport {
    public var title: String
    /// Address of the flat and complainant, from the configuration.
    public var address: String
    public var notes: String
    public var generatedAt: Date
    public var events: [ReportEvent]
    public var statistics: EvidenceStatistics
    public var rules: [RuleCheck]
    /// The most events listed (loudest first when there are more).
    public var maximumListedEvents = 2000

    public init(
        title: String, address: String = "", notes: String = "", generatedAt: Date = Date(), events: [ReportEvent],
        statistics: EvidenceStatistics, rules: [RuleCheck]
    ) {
        self.title = title
        self.address = address
        self.notes = notes
        self.generatedAt = generatedAt
        self.events = events
        self.statistics = statistics
        self.rules = rules
    }

    static let typeColours: [(FootstepType, String)] = [
        (.heelStrike, "#4e79a7"), (.stomping, "#e15759"), (.running, "#f28e2b"), (.shuffling, "#59a14f"), (.unknown, "#9c9c9c"),
    ]

    /// The complete document.
    public func render() -> String {
        let scope = statistics.scope
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"/><title>\(e(title))</title>
            <style>
            body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}
            table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}
            th{background:#f0f0f0}td.l,th.l{text-align:left}.big{font-size:1.6em;font-weight:bold}
            .summary{display:flex;gap:2em;flex-wrap:wrap}.summary>div{border:1px solid #ccc;padding:.6em 1em}
            </style></head><body>
            <h1>\(e(title))</h1>
            <p>\(e(format(scope.from))) to \(e(format(scope.to))) (\(e(scope.timeZone.identifier))). Quiet hours \(e(scope.quietHours.description)). Levels: \(e(scope.levelUnit)).</p>
            """
        if !address.isEmpty { html += "<p><strong>Address:</strong> \(e(address))</p>" }
        if !notes.isEmpty { html += "<p><strong>Notes:</strong> \(e(notes))</p>" }
        html += "<h2>Summary</h2><div class=\"summary\">"
        html += "<div><div class=\"big\">\(statistics.footsteps)</div>footsteps</div>"
        html += "<div><div class=\"big\">\(statistics.footstepsInQuietHours)</div>in quiet hours</div>"
        html += "<div><div class=\"big\">\(statistics.otherEvents)</div>other impacts</div>"
        if let peak = statistics.peakHour {
            html += "<div><div class=\"big\">\(String(format: "%02d:00", peak))</div>busiest hour</div>"
        }
        html += "</div><p>By type: "
        html += FootstepType.allCases.map { "\($0.rawValue) \(statistics.footstepsByType[$0, default: 0])" }.joined(separator: ", ")
        html += "</p>"
        html += hourChart()
        html += dayChart()
        html += nightTable()
        html += ruleTable()
        html += eventTable()
        html += "<p><small>Generated \(e(format(generatedAt))) by footstepd.</small></p></body></html>\n"
        return html
    }

    private func hourChart() -> String {
        let calendar = calendarForScope
        let series = Self.typeColours.map { type, colour in
            SVGBarChart.Series(
                name: type.rawValue, colour: colour,
                values: (0..<24).map { hour in
                    Double(events.filter { $0.kind == .footstep && $0.type == type && calendar.component(.hour, from: $0.timestamp) == hour && inScope($0) }.count)
                })
        }
        return SVGBarChart(title: "Footsteps by hour of day", labels: (0..<24).map { String(format: "%02d", $0) }, series: series).render()
    }

    private func dayChart() -> String {
        let days = statistics.footstepsByDay
        guard days.count > 1 else { return "" }
        let series = [SVGBarChart.Series(name: "footsteps", colour: "#4e79a7", values: days.map { Double($0.count) })]
        return SVGBarChart(title: "Footsteps per day", labels: days.map { String($0.date.suffix(5)) }, series: series).render()
    }

    private func nightTable() -> String {
        guard !statistics.nights.isEmpty else { return "" }
        var html = "<h2>Nights</h2><table><tr><th class=\"l\">night of</th><th>footsteps</th><th>other</th><th>first</th><th>last</th><th>loudest LAFmax</th><th>LAeq</th><th>LA90</th></tr>"
        for night in statistics.nights {
            html += "<tr><td class=\"l\">\(e(night.date))</td><td>\(night.footsteps)</td><td>\(night.otherEvents)</td>"
            html += "<td>\(night.firstEvent.map(time) ?? "–")</td><td>\(night.lastEvent.map(time) ?? "–")</td>"
            html += "<td>\(level(night.loudestLAFmax))</td><td>\(level(night.laeq))</td><td>\(level(night.la90))</td></tr>"
        }
        return html + "</table>"
    }

    private func ruleTable() -> String {
        var html = "<h2>Rule checks</h2><table><tr><th class=\"l\">rule</th><th class=\"l\">threshold</th><th>exceeded</th><th class=\"l\">first times</th></tr>"
        for rule in rules {
            let first = rule.exceedances.prefix(5).map { format($0.time) }.joined(separator: "; ")
            html += "<tr><td class=\"l\">\(e(rule.name))</td><td class=\"l\">\(e(rule.threshold))</td><td>\(rule.exceedances.count)</td><td class=\"l\">\(e(first))</td></tr>"
        }
        return html + "</table>"
    }

    private func eventTable() -> String {
        var listed = events.filter(inScope)
        var heading = "Events"
        if listed.count > maximumListedEvents {
            listed = Array(listed.sorted { $0.laMax > $1.laMax }.prefix(maximumListedEvents)).sorted { $0.timestamp < $1.timestamp }
            heading = "The \(maximumListedEvents) loudest events"
        }
        var html = "<h2>\(heading)</h2><table><tr><th class=\"l\">time</th><th class=\"l\">kind</th><th class=\"l\">type</th><th>confidence</th><th>LAFmax</th><th>LCFmax</th></tr>"
        for event in listed {
            html += "<tr><td class=\"l\">\(e(format(event.timestamp, fraction: true)))</td><td class=\"l\">\(event.kind.rawValue)</td><td class=\"l\">\(event.type.rawValue)</td>"
            html += "<td>\(String(format: "%.2f", event.confidence))</td><td>\(level(event.laMax))</td><td>\(level(event.lcMax))</td></tr>"
        }
        return html + "</table>"
    }

    private var calendarForScope: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = statistics.scope.timeZone
        return calendar
    }

    private func inScope(_ event: ReportEvent) -> Bool {
        event.timestamp >= statistics.scope.from && event.timestamp < statistics.scope.to
    }

    private func format(_ date: Date, fraction: Bool = false) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = statistics.scope.timeZone
        formatter.dateFormat = fraction ? "yyyy-MM-dd HH:mm:ss.SSS" : "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    private func time(_ date: Date) -> String { String(format(date).suffix(8)) }
    private func level(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "–" }
    private func e(_ text: String) -> String { HTMLText.escape(text) }
}
