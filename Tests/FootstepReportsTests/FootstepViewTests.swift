import FootstepCore
import FootstepReports
import Foundation
import Testing

/// The footstep complaint's view: the loudest footsteps apart from the loudest
/// events, and every rule exceedance split by what made it.
@Suite("Report: the footstep view")
struct FootstepViewTests {
    /// One night (23:00 local = 23:00 UTC in November, Europe/London): three loud
    /// footsteps, two loud knocks, quiet steps, and level minutes of which one is
    /// loud without any impact.
    static func document() -> ReportDocument {
        let night = ReportFixture.start.addingTimeInterval(5 * 3600)  // 23:00
        var events: [ReportEvent] = []
        for (index, level) in [50.0, 52.5, 49.0].enumerated() {
            events.append(ReportEvent(
                id: Int64(index + 1), timestamp: night.addingTimeInterval(Double(index) * 600 + 10), kind: .footstep,
                type: .stomping, confidence: 0.9, laMax: level, lcMax: 60))
        }
        for (index, level) in [58.0, 61.0].enumerated() {
            events.append(ReportEvent(
                id: Int64(index + 10), timestamp: night.addingTimeInterval(Double(index) * 600 + 300), kind: .other,
                type: .unknown, confidence: 0.8, laMax: level, lcMax: 66))
        }
        for index in 0..<20 {
            events.append(ReportEvent(
                id: Int64(index + 20), timestamp: night.addingTimeInterval(3600 + Double(index) * 0.6), kind: .footstep,
                type: .heelStrike, confidence: 0.8, laMax: 38, lcMax: 50))
        }
        // Minute LAeq above the Korean night limit (34): one with a footstep, one with a knock, one with neither.
        let levels = [(10.0, 40.0), (300.0, 41.0), (7200.0, 36.0)].map { offset, laeq in
            ReportLevelInterval(start: night.addingTimeInterval(offset - 10), laeq: laeq, lceq: 50, lafMax: 45, la90: 25)
        } + [ReportLevelInterval(start: night.addingTimeInterval(9000), laeq: 28, lceq: 40, lafMax: 30, la90: 24)]
        return ReportDocument(
            events: events, levels: levels, scope: ReportFixture.scope(days: 1), options: ReportOptions())
    }

    @Test func everyExceedanceSaysWhetherAFootstepMadeIt() throws {
        let document = Self.document()
        let who = try #require(document.rules.first { $0.rule == ReportRule.who })
        #expect(who.exceedances.map(\.cause) == [.footstep, .otherImpact, .footstep, .otherImpact, .footstep])
        #expect(who.verdict == "exceeded 5 times on 1 night (3 by footsteps, 2 by other impacts)")
        let minutes = try #require(document.rules.first { $0.rule == ReportRule.koreanMinuteLAeq })
        #expect(minutes.exceedances.map(\.cause) == [.footstep, .otherImpact, .background])
        #expect(minutes.verdict.hasSuffix("(1 by footsteps, 1 by other impacts, 1 by the background)"))

        let json = try #require(try JSONSerialization.jsonObject(with: JSONReport(document: document).render()) as? [String: Any])
        let rules = try #require(json["rules"] as? [[String: Any]])
        let causes = (rules.first?["exceedances"] as? [[String: Any]])?.compactMap { $0["cause"] as? String }
        #expect(causes == ["footstep", "other", "footstep", "other", "footstep"])
    }

    @Test func theLoudestFootstepsAreListedApartFromTheLoudestEvents() {
        let html = HTMLReport(document: Self.document()).render()
        let section = html.components(separatedBy: "<h2>Loudest footsteps</h2>").dropFirst().first ?? ""
        #expect(!section.isEmpty)
        // The loudest footstep (52.5) comes first; the knocks (58, 61) are not in this table.
        let table = section.components(separatedBy: "</table>").first ?? ""
        #expect(table.contains("52.5"))
        #expect(!table.contains("61.0") && !table.contains("58.0"))
        if let loudest = table.range(of: "52.5"), let next = table.range(of: "50.0") {
            #expect(loudest.lowerBound < next.lowerBound)
        }
    }
}
