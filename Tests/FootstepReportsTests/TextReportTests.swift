import FootstepCore
import FootstepReports
import FootstepTesting
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("HTML, CSV and JSON reports")
struct TextReportTests {
    @Test func htmlIsWellFormedSelfContainedAndPlaysTheLoudestClips() throws {
        let document = ReportFixture.document()
        let html = HTMLReport(document: document).render()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("http://") && !html.contains("https://"))
        #expect(!html.contains("<script"))
        // Parses as XML (every element closed, every & escaped).
        let parser = XMLParser(data: Data(html.utf8))
        let parsed = parser.parse()
        #expect(parsed, "XML error: \(String(describing: parser.parserError)) at line \(parser.lineNumber)")
        #expect(html.contains("<h1>Noise &lt;report&gt; &amp; more</h1>"))
        #expect(html.components(separatedBy: "<audio controls").count - 1 == document.loudest.count)
        #expect(html.contains("src=\"data:audio/wav;base64,"))
        #expect(html.contains("<b>\(document.statistics.footsteps)</b><span>footsteps</span>"))
        // Night chart, hour chart, day chart, legend, one timeline per night, two thumbnails per loud event.
        let svgs = html.components(separatedBy: "<svg").count - 1
        #expect(svgs == 4 + document.timelineNights.count + 2 * document.loudest.count)
        #expect(html.contains("data:image/png;base64,"))
    }

    @Test func csvHasOneRowPerEventAndQuotesNotes() throws {
        let document = ReportFixture.document(events: 700, days: 3)
        let rows = Self.parseCSV(CSVReport(document: document).render())
        #expect(rows.first == CSVReport.header)
        #expect(rows.count - 1 == document.events.count)
        #expect(rows.count - 1 > document.listedEvents.count)  // CSV lists all, not only the PDF's 400
        #expect(rows.dropFirst().allSatisfy { $0.count == CSVReport.header.count })
        let notes = try #require(CSVReport.header.firstIndex(of: "notes"))
        let noted = try #require(rows.dropFirst().first { !$0[notes].isEmpty })
        #expect(noted[notes] == "door, then \"thud\" <upstairs> & more\nsecond line")
        // A revised step: its current type, and the one it was stored with.
        let type = try #require(CSVReport.header.firstIndex(of: "type"))
        let revisedFrom = try #require(CSVReport.header.firstIndex(of: "revised_from"))
        let revised = try #require(document.events.first { $0.revisedFrom != nil })
        let row = try #require(rows.first { $0[0] == String(revised.id!) })
        #expect(row[type] == revised.type.rawValue && row[revisedFrom] == "heel_strike")
        #expect(rows.dropFirst().filter { $0[revisedFrom] == "heel_strike" }.count == document.events.filter { $0.revisedFrom != nil }.count)
        #expect(rows[1][2].hasSuffix("Z") && rows[1][3].hasSuffix("+00:00"))
        #expect(rows[1][13] == "calibrated")
    }

    @Test func jsonDecodesBackToTheSameFigures() throws {
        let document = ReportFixture.document(events: 300, days: 2, rules: [ReportRule(name: "busy", metric: .eventsPerHour, threshold: 5)])
        let data = JSONReport(document: document).render()
        let decoded = try ReportJSON.decoder.decode(ReportJSON.self, from: data)
        #expect(decoded == ReportJSON(document))
        #expect(decoded.schemaVersion == 1)
        #expect(decoded.events.count == document.events.count)
        #expect(decoded.summary.footsteps == document.statistics.footsteps)
        #expect(decoded.rules.count == 4)
        #expect(decoded.rules[0].perNight == document.rules[0].perNight)
        #expect(decoded.calibration.status == "calibrated")
        #expect(String(decoding: data, as: UTF8.self).contains("\"generatedAt\" : \"2026-11-22T19:00:00.000Z\""))
    }

    @Test(arguments: [true, false])
    func streamedJSONIsByteForByteWhatJSONEncoderWrites(calibrated: Bool) throws {
        // Empty and filled arrays and objects, nil members (uncalibrated), escaped notes, integral and fractional doubles.
        let document = ReportFixture.document(events: 400, days: 2, calibrated: calibrated, rules: [ReportRule(name: "busy", metric: .eventsPerHour, threshold: 5)])
        let streamed = JSONReport(document: document).render()
        let encoded = try ReportJSON.encoder.encode(ReportJSON(document))
        #expect(streamed.count == encoded.count)
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }

    @Test func reportFilesWrittenAsStreamsEqualTheRenderedText() throws {
        let directory = try TemporaryDirectory(prefix: "text-streams")
        let document = ReportFixture.document(events: 500, days: 2)
        try CSVReport(document: document).write(to: directory.appending("r.csv"))
        try JSONReport(document: document).write(to: directory.appending("r.json"))
        #expect(try String(contentsOfFile: directory.appending("r.csv"), encoding: .utf8) == CSVReport(document: document).render())
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.appending("r.json"))) == JSONReport(document: document).render())
        // Nothing but the two reports: no temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["r.csv", "r.json"])
        #expect(throws: ReportError.self) { try CSVReport(document: document).write(to: directory.appending("missing/r.csv")) }
    }

    /// RFC 4180 fields (quoted fields may hold commas, quotes and line breaks).
    static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text.unicodeScalars)[...]
        while let c = characters.popFirst() {
            if quoted {
                if c == "\"" {
                    if characters.first == "\"" {
                        field.unicodeScalars.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field)
                field = ""
            } else if c == "\r" {
                continue
            } else if c == "\n" {
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            } else {
                field.unicodeScalars.append(c)
            }
        }
        return rows
    }
}
