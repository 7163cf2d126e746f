import FootstepCore
import FootstepReports
import Foundation
import Testing

@Suite("HTML report")
struct HTMLReportTests {
    static func sampleReport() -> (html: String, statistics: EvidenceStatistics) {
        let zone = TimeZone(identifier: "Europe/London")!
        let start = ISO8601DateFormatter().date(from: "2026-11-20T22:00:00Z")!
        var events: [ReportEvent] = []
        for i in 0..<300 {
            let isOther = i % 10 == 0
            let type: FootstepType = isOther ? .unknown : FootstepType.classified[i % 4]
            let time = start.addingTimeInterval(Double(i) * 97)
            events.append(
                ReportEvent(timestamp: time, kind: isOther ? .other : .footstep, type: type, laMax: 40 + Double(i % 25), lcMax: 55, confidence: 0.8))
        }
        let scope = ReportScope(from: start, to: start.addingTimeInterval(10 * 3600), timeZone: zone, quietHours: DailyWindow(start: 23 * 60, end: 7 * 60), calibrated: true)
        let statistics = EvidenceStatistics(events: events, levels: [], scope: scope)
        let rules = RuleCheck.standardChecks(events: events, levels: [], scope: scope)
        let html = HTMLReport(title: "Noise <report> & more", address: "Flat 2", events: events, statistics: statistics, rules: rules).render()
        return (html, statistics)
    }

    @Test func theReportIsSelfContained() {
        let html = Self.sampleReport().html
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("src="))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
    }

    @Test func tagsAreBalancedAndTextIsEscaped() {
        let html = Self.sampleReport().html
        #expect(html.contains("<h1>Noise &lt;report&gt; &amp; more</h1>"))
        var stack: [String] = []
        var index = html.startIndex
        let voidElements: Set = ["meta", "br", "!DOCTYPE"]
        while let open = html[index...].firstIndex(of: "<") {
            guard let close = html[open...].firstIndex(of: ">") else {
                Issue.record("unterminated tag")
                return
            }
            let tag = html[html.index(after: open)..<close]
            index = html.index(after: close)
            if tag.hasSuffix("/") { continue }
            let name = tag.split(whereSeparator: { $0 == " " }).first.map(String.init) ?? ""
            if name.hasPrefix("/") {
                #expect(stack.popLast() == String(name.dropFirst()), "closing \(name)")
            } else if !voidElements.contains(name) {
                stack.append(name)
            }
        }
        #expect(stack.isEmpty, "unclosed: \(stack)")
    }

    @Test func theSummaryFiguresAppear() {
        let (html, statistics) = Self.sampleReport()
        #expect(statistics.footsteps == 270)
        #expect(html.contains("<div class=\"big\">270</div>footsteps"))
        #expect(html.contains("<div class=\"big\">30</div>other impacts"))
        #expect(html.contains("<div class=\"big\">\(statistics.footstepsInQuietHours)</div>in quiet hours"))
        #expect(html.contains("WHO night noise"))
        // Footsteps by hour, and per day (the scope spans 20 and 21 November).
        #expect(html.components(separatedBy: "<svg").count - 1 == 2)
    }
}
