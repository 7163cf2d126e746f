import FootstepCore
@testable import FootstepReports
import FootstepTesting
import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What the PDF and HTML list of a busy period holds, and the clips copied next to the HTML.
@Suite("Event list and clip folder")
struct ReportListingTests {
    @Test func aLongListKeepsTheLoudestAndEveryEventWithNotes() {
        let document = ReportFixture.document(events: 2000, days: 3)  // lists at most 400
        let events = document.events
        let loudest = events.sorted { $0.laMax > $1.laMax }
        let threshold = loudest[399].laMax
        let noted = events.filter { !$0.notes.isEmpty }
        #expect(!noted.isEmpty)
        #expect(document.listIsTruncated)
        // Every event louder than the 400th, every noted event, and nothing else quieter without a note.
        for event in events where event.laMax > threshold || !event.notes.isEmpty {
            #expect(document.listedEvents.contains(event), "missing \(event.id!)")
        }
        let quietUnnoted = document.listedEvents.filter { $0.laMax < threshold && $0.notes.isEmpty }
        #expect(quietUnnoted.isEmpty)
        #expect(document.listedEvents.count == 400 + noted.filter { $0.laMax < threshold }.count)
        #expect(document.listedEvents.map(\.timestamp) == document.listedEvents.map(\.timestamp).sorted())
        #expect(document.listHeading == "The 400 loudest events and every event with notes, in time order")
        #expect(document.listNote?.contains("The period has 2000 events") == true)
        #expect(document.listNote?.contains("all \(noted.count) with notes") == true)
    }

    @Test func aShortListHasEveryEvent() {
        let document = ReportFixture.document(events: 300, days: 2)
        #expect(document.listedEvents == document.events)
        #expect(document.listHeading == "All events")
        #expect(document.listNote == nil)
    }

    @Test func clipsAreCopiedAndLinkedRelatively() throws {
        let directory = try TemporaryDirectory(prefix: "clip-folder")
        let sources = [directory.appending("a"), directory.appending("b")]
        for source in sources { try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true) }
        let files = ["\(sources[0])/event-1.flac", "\(sources[0])/event #2.wav", "\(sources[1])/event-1.flac"]
        for (index, file) in files.enumerated() { try Data("clip \(index)".utf8).write(to: URL(fileURLWithPath: file)) }
        let start = ReportFixture.start
        var events = files.enumerated().map { index, path in
            ReportEvent(
                id: Int64(index + 1), timestamp: start.addingTimeInterval(Double(index) * 60), kind: .footstep, type: .stomping,
                confidence: 1, laMax: 50 - Double(index), clip: ReportClipFile(path: path, sha256: nil))
        }
        events.append(ReportEvent(
            id: 9, timestamp: start.addingTimeInterval(600), kind: .other, type: .unknown, confidence: 1, laMax: 40,
            clip: ReportClipFile(path: "\(sources[0])/gone.flac", sha256: nil)))
        let output = directory.appending("report")

        let folder = try ReportClipFolder.copy(clipsOf: events, into: output)
        #expect(folder.links[files[0]] == "clips/event-1.flac")
        #expect(folder.links[files[1]] == "clips/event%20%232.wav")
        let renamed = try #require(folder.links[files[2]])
        #expect(renamed != "clips/event-1.flac" && renamed.hasSuffix("event-1.flac"))
        for (index, file) in files.enumerated() {
            let copy = output + "/" + folder.links[file]!.removingPercentEncoding!
            #expect(try String(contentsOfFile: copy, encoding: .utf8) == "clip \(index)")
        }
        #expect(folder.failures.map { $0.path } == ["\(sources[0])/gone.flac"])

        // Copying again replaces the old copies.
        try Data("new".utf8).write(to: URL(fileURLWithPath: files[0]))
        _ = try ReportClipFolder.copy(clipsOf: events, into: output)
        #expect(try String(contentsOfFile: "\(output)/clips/event-1.flac", encoding: .utf8) == "new")

        let scope = ReportScope(from: start, to: start.addingTimeInterval(3600), timeZone: ReportFixture.zone, quietHours: ReportFixture.quiet, calibration: nil)
        let document = ReportDocument(events: events, levels: [], scope: scope, options: ReportOptions())
        let html = HTMLReport(document: document, clipLinks: folder.links).render()
        #expect(html.contains("<a href=\"clips/event-1.flac\">event-1.flac</a>"))
        #expect(html.contains("<a href=\"clips/event%20%232.wav\">event #2.wav</a>"))
        #expect(html.contains("<td class=\"l\">gone.flac</td>"))  // named, not linked
        #expect(XMLParser(data: Data(html.utf8)).parse())
    }

    @Test func fixedPointTextMatchesPrintf() {
        let values: [Double] = [0, 1, -1, 0.5, 1.25, 2.375, 45, 45.04, 45.06, 99.95, 123456.789, -3.14159, 0.001, 1e-9, 62.123456]
        for value in values {
            for decimals in 0...3 {
                #expect(ReportNumber.fixed(value, decimals) == String(format: "%.\(decimals)f", value), "\(value) \(decimals)")
            }
        }
    }
}
