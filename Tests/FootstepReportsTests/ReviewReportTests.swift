import FootstepCore
import FootstepReports
import FootstepTesting
import Foundation
import Testing

/// Reports of reviewed events: rejected ones counted nowhere and listed with their reasons, each night's review
/// stated, an unreviewed period said to be so.
@Suite("Reviewed events in reports")
struct ReviewReportTests {
    /// The fixture's events, the loudest 20 footsteps rejected ("the radio", by alice) and 30 others confirmed (bob).
    static func reviewed() -> (document: ReportDocument, rejectedIds: Set<Int64>) {
        var events = ReportFixture.events(count: 400, days: 2)
        let loudSteps = events.indices.filter { events[$0].kind == .footstep }.sorted { events[$0].laMax > events[$1].laMax }
        for index in loudSteps.prefix(20) {
            events[index].review = ReportReview(verdict: .rejected, reviewer: "alice", reason: "the radio")
        }
        for index in loudSteps.dropFirst(20).prefix(30) {
            events[index].review = ReportReview(verdict: .confirmed, reviewer: "bob")
        }
        let document = ReportDocument(
            events: events, levels: ReportFixture.levels(days: 2), scope: ReportFixture.scope(days: 2),
            options: ReportOptions(title: "t", source: "test", generatedAt: ReportFixture.start, softwareVersion: "0"),
            audio: ReportFixture.clip)
        return (document, Set(loudSteps.prefix(20).map { events[$0].id! }))
    }

    @Test func rejectedFootstepsLeaveEveryCountAndAreListedWithTheirReasons() throws {
        let (document, rejectedIds) = Self.reviewed()
        let all = ReportDocument(
            events: ReportFixture.events(count: 400, days: 2), levels: ReportFixture.levels(days: 2),
            scope: ReportFixture.scope(days: 2),
            options: ReportOptions(title: "t", source: "test", generatedAt: ReportFixture.start, softwareVersion: "0"))
        #expect(document.statistics.footsteps == all.statistics.footsteps - 20)
        #expect(Set(document.rejected.map { $0.id! }) == rejectedIds)
        #expect(!document.events.contains { rejectedIds.contains($0.id!) })
        #expect(!document.loudest.contains { rejectedIds.contains($0.event.id!) })
        // The loudest footsteps were rejected: the loudest left is quieter.
        #expect(document.events.map(\.laMax).max()! <= all.events.map(\.laMax).max()!)

        let reviews = document.nightReviews
        #expect(reviews.reduce(0) { $0 + $1.rejected } == document.rejected.filter { e in
            document.statistics.nights.contains { e.timestamp >= $0.start && e.timestamp < $0.end } }.count)
        #expect(reviews.contains { $0.reviewers.contains("alice") })
        #expect(document.reviewStatement.contains("of \(document.events.count + 20) events were reviewed"))

        let html = HTMLReport(document: document).render()
        #expect(html.contains("<h2>Review</h2>"))
        #expect(html.contains("<h3>Rejected on review</h3>"))
        #expect(html.components(separatedBy: "<td class=\"l\">the radio</td>").count - 1 == 20)

        let csv = TextReportTests.parseCSV(CSVReport(document: document).render())
        let review = try #require(CSVReport.header.firstIndex(of: "review"))
        let reason = try #require(CSVReport.header.firstIndex(of: "review_reason"))
        #expect(csv.count - 1 == 400)
        #expect(csv.dropFirst().filter { $0[review] == "rejected" && $0[reason] == "the radio" }.count == 20)
        #expect(csv.dropFirst().filter { $0[review] == "confirmed" }.count == 30)
        // Time order is kept across kept and rejected rows.
        let times = csv.dropFirst().map { $0[2] }
        #expect(times == times.sorted())

        let json = try ReportJSON.decoder.decode(ReportJSON.self, from: JSONReport(document: document).render())
        #expect(json == ReportJSON(document))
        #expect(Set(json.rejectedEvents.compactMap(\.id)) == rejectedIds)
        #expect(json.rejectedEvents.allSatisfy {
            $0.review?.verdict == "rejected" && $0.review?.reviewer == "alice" && $0.review?.reason == "the radio"
        })
        #expect(json.nights.map(\.review.rejected) == reviews.map(\.rejected))
        #expect(json.summary.footsteps == document.statistics.footsteps)
    }

    @Test func anUnreviewedPeriodSaysSoPlainly() {
        let document = ReportFixture.document(events: 200, days: 2)
        #expect(document.nobodyReviewed)
        #expect(document.rejected.isEmpty)
        let html = HTMLReport(document: document).render()
        #expect(html.contains("<p class=\"warn\">Not reviewed: nobody has listened to these events yet"))
        #expect(document.nightReviews.allSatisfy { $0.isUnreviewed })
        #expect(html.contains("<td class=\"l\">not reviewed</td>"))
    }

    @Test func theReviewSectionIsInThePDF() throws {
        let (document, _) = Self.reviewed()
        let directory = try TemporaryDirectory(prefix: "review-pdf")
        let path = directory.appending("r.pdf")
        try PDFReport(document: document).write(to: path)
        let text = try ReportTools.run("pdftotext", [path, "-"])
        #expect(text.contains("Rejected on review"))
        #expect(text.contains("the radio"))
    }
}
