import FootstepCore
import FootstepReports
import FootstepTesting
import Foundation
import Testing

@Suite("PDF report", .serialized)
struct PDFReportTests {
    @Test func rendersEveryPageWithContentAndTheSummaryFigures() throws {
        let directory = try TemporaryDirectory(prefix: "pdf-report")
        let document = ReportFixture.document()
        let pdf = directory.appending("report.pdf")
        try PDFReport(document: document).write(to: pdf)

        let info = try ReportTools.info(pdf)
        let pages = try #require(Int(info["Pages"] ?? ""))
        #expect(pages >= 8, "pages: \(pages)")
        #expect(info["Page size"]?.hasPrefix("595 x 842") == true, "A4: \(info["Page size"] ?? "")")

        try ReportTools.run("pdftoppm", ["-r", "20", "-png", pdf, directory.appending("page")])
        let pngs = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".png") }.sorted()
        #expect(pngs.count == pages)
        for png in pngs {
            #expect(ReportTools.greyDeviation(directory.appending(png)) > 5, "blank page \(png)")
        }

        let text = try ReportTools.run("pdftotext", ["-layout", pdf, "-"])
        let s = document.statistics
        #expect(text.contains(document.headline.prefix(40)))
        #expect(text.contains("\(s.footsteps)"))
        #expect(text.contains("Page 1 of \(pages)"))
        #expect(text.contains("Page \(pages) of \(pages)"))
        #expect(text.contains("calibrated (+112.4 dB, 2026-11-19)"))
        #expect(text.contains("Flat 2, 10 Example Road"))
        #expect(text.contains("WHO night noise"))
        #expect(text.contains("Loudest events"))
        // Each night's worst hour, minute by minute, under a heading naming the hour.
        #expect(text.contains("Worst hour of each night, minute by minute"))
        for night in document.worstHourNights {
            #expect(text.contains(document.worstHourTitle(night, night.worstHour!)), "\(night.date)")
        }
        // Revised steps are marked, and the mark explained (one line per event: no wrapped labels).
        #expect(document.revisionNote != nil)
        #expect(text.contains("* Label revised once the impacts"))
        // The night table lists every night.
        for night in s.nights { #expect(text.contains(night.date)) }
        // The note of the first listed event with a note (notes wrap: check its start).
        #expect(text.contains("door, then \"thud\""))
    }

    @Test func letterPaperIsLetterSized() throws {
        let directory = try TemporaryDirectory(prefix: "pdf-letter")
        let pdf = directory.appending("letter.pdf")
        try PDFReport(document: ReportFixture.document(events: 50, days: 1, paper: .letter)).write(to: pdf)
        #expect(try ReportTools.info(pdf)["Page size"]?.hasPrefix("612 x 792") == true)
    }

    @Test func uncalibratedReportsSayTheRulesCannotBeJudged() throws {
        let directory = try TemporaryDirectory(prefix: "pdf-uncal")
        let pdf = directory.appending("uncalibrated.pdf")
        try PDFReport(document: ReportFixture.document(events: 80, days: 1, calibrated: false)).write(to: pdf)
        let text = try ReportTools.run("pdftotext", [pdf, "-"])
        #expect(text.contains("uncalibrated, relative dBFS"))
        #expect(text.contains("cannot be judged"))
    }

    @Test func anEmptyPeriodStillRendersATitlePage() throws {
        let directory = try TemporaryDirectory(prefix: "pdf-empty")
        let pdf = directory.appending("empty.pdf")
        let document = ReportDocument(events: [], levels: [], scope: ReportFixture.scope(days: 1), options: ReportOptions())
        try PDFReport(document: document).write(to: pdf)
        let text = try ReportTools.run("pdftotext", [pdf, "-"])
        #expect(text.contains("0 footsteps and 0 other impacts"))
    }

    @Test func anUnwritablePathIsAnErrorNamingIt() {
        let document = ReportDocument(events: [], levels: [], scope: ReportFixture.scope(days: 1), options: ReportOptions())
        #expect(throws: ReportError.self) { try PDFReport(document: document).write(to: "/nonexistent-dir/x.pdf") }
    }
}
