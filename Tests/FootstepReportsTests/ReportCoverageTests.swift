import FootstepCore
import FootstepReports
import Foundation
import Testing

/// Coverage: nights without audio say "not recorded"; gaps and interruptions are listed.
@Suite("Report coverage")
struct ReportCoverageTests {
    /// Three nights (23:00-07:00 local); a session covers night 1 with a 90 s gap and is
    /// interrupted at 02:00 of night 2; nothing covers night 3.
    static func document() -> ReportDocument {
        let start = ReportFixture.start  // 2026-11-20 18:00 local
        let coverage = ReportCoverage(
            sessions: [
                ReportCoverage.Session(id: 1, title: "one", start: start, end: start.addingTimeInterval(32 * 3600), status: "interrupted"),
            ],
            gaps: [
                ReportCoverage.Gap(sessionId: 1, start: start.addingTimeInterval(6 * 3600), end: start.addingTimeInterval(6 * 3600 + 90), reason: "capture device lost"),
            ])
        let integrity = ReportIntegrity(
            headHash: String(repeating: "ab", count: 32), headEventId: 600, checkedEvents: 600, intact: true, problems: 0,
            verifiedAt: start.addingTimeInterval(3 * 86400), command: "footstepctl verify --database /var/lib/footstepd/footstepd.db")
        let events = ReportFixture.events(count: 300, days: 1)
        return ReportDocument(
            events: events, levels: ReportFixture.levels(days: 1), scope: ReportFixture.scope(days: 3),
            options: ReportOptions(address: "Flat 2"), coverage: coverage, integrity: integrity)
    }

    @Test func nightsWithoutAudioAreNotRecordedAndTheOutagesAreListed() throws {
        let document = Self.document()
        let nights = document.statistics.nights
        #expect(nights.map(\.date) == ["2026-11-20", "2026-11-21", "2026-11-22"])
        #expect(abs((nights[0].recordedSeconds ?? 0) - (8 * 3600 - 90)) < 0.01)
        #expect(abs((nights[1].recordedSeconds ?? 0) - 3 * 3600) < 0.01)
        #expect(nights[2].recordedSeconds == 0)
        #expect(nights.map(\.notRecorded) == [false, false, true])
        #expect(document.statistics.recordedNights == 2)

        let html = HTMLReport(document: document).render()
        #expect(html.contains("not recorded"))
        #expect(html.contains("Recorded 10 h 58 min of the 24 h of quiet hours in the period (46 %); 1 night not recorded at all"))
        #expect(html.contains("1 gap without audio inside sessions (1 min 30 s in all)"))
        #expect(html.contains("1 session was interrupted"))
        #expect(html.contains("session 1: capture device lost"))
        #expect(html.contains("session 1 interrupted (footstepd stopped without closing it)"))
        #expect(html.contains(String(repeating: "ab", count: 32)))
        #expect(html.contains("footstepctl verify --database /var/lib/footstepd/footstepd.db"))

        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONReport(document: document).render()) as? [String: Any])
        let coverage = try #require(json["coverage"] as? [String: Any])
        #expect(coverage["nightsNotRecorded"] as? [String] == ["2026-11-22"])
        #expect(abs((coverage["recordedQuietHoursSeconds"] as? Double ?? 0) - (11 * 3600 - 90)) < 0.01)
        let jsonNights = try #require(json["nights"] as? [[String: Any]])
        #expect(jsonNights.map { $0["notRecorded"] as? Bool } == [false, false, true])
        #expect((json["integrity"] as? [String: Any])?["headEventId"] as? Int == 600)
    }

    @Test func streamedJSONWithCoverageAndIntegrityIsWhatJSONEncoderWrites() throws {
        let document = Self.document()
        let streamed = JSONReport(document: document).render()
        let encoded = try ReportJSON.encoder.encode(ReportJSON(document))
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }
}
