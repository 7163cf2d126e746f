import FootstepAudio
import FootstepCore
import FootstepReports
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// `footstepctl report` end to end: a real SQLite store written with FootstepStore
/// (and still open for writing, as the daemon keeps it), read by the built binary.
@Suite("footstepctl report", .serialized)
struct ReportCommandTests {
    static let start = ISO8601DateFormatter().date(from: "2026-11-20T20:00:00Z")!

    /// Two sessions over two nights: events with notes, level minutes, a bout, a calibration
    /// and WAV clips for the ten loudest events of session 1.
    static func makeStore(in directory: TemporaryDirectory) throws -> (database: FootstepDatabase, sessions: [Int64], events: [NewEvent]) {
        let database = try FootstepDatabase.open(path: directory.appending("state/footstepd.db"))
        try database.addCalibration(measuredAt: start.addingTimeInterval(-86400), offsetDB: 110, method: "94 dB calibrator", reference: "test")
        var all: [NewEvent] = []
        var sessions: [Int64] = []
        var generator = SeededRandom(seed: 11)
        for (index, offset) in [0.0, 86400].enumerated() {
            let session = try database.createSession(
                startedAt: start.addingTimeInterval(offset), device: "synthetic:night", sampleRate: 16000, timeZone: "Europe/London",
                title: "night \(index + 1)")
            let id = session.id!
            sessions.append(id)
            let events = (0..<150).map { i -> NewEvent in
                let seconds = Double(i) * 150 + Double.random(in: 0..<100, using: &generator)
                let isStep = i % 6 != 0
                return NewEvent(
                    sessionId: id, frameOffset: Int64(seconds * 16000), timestamp: start.addingTimeInterval(offset + seconds),
                    measurements: EventMeasurements(
                        duration: 0.25, kind: isStep ? .footstep : .other,
                        type: isStep ? FootstepType.classified[i % 4] : .unknown, confidence: 0.9, intensity: .high,
                        laMax: 35 + Double(i % 20), lcMax: 58, peakDBFS: -20, sel: 30),
                    notes: i % 50 == 0 ? "bang, \"loud\"" : "")
            }
            try database.appendEvents(events)
            all += events
            try database.appendLevels((0..<(7 * 60)).map { minute in
                LevelMinuteRecord(
                    sessionId: id, startedAt: start.addingTimeInterval(offset + Double(minute) * 60), laeq: 30 + Double(minute % 7),
                    lceq: 45, lafMax: 50, lafMin: 25, la10: 35, la90: 27)
            })
            try database.appendBout(BoutRecord(
                sessionId: id, startedAt: start.addingTimeInterval(offset + 3 * 3600), endedAt: start.addingTimeInterval(offset + 3 * 3600 + 5),
                steps: 9, cadence: 1.8, dominantType: .heelStrike, kind: .walking))
        }
        // Clips for session 1's events (the loudest of which the HTML embeds).
        let clips = directory.appending("state/clips")
        try FileManager.default.createDirectory(atPath: clips, withIntermediateDirectories: true)
        let rows = try database.events(EventFilter(sessionId: sessions[0], limit: 1000)).items
        for row in rows.prefix(40) {
            let path = "\(clips)/event-\(row.id!).wav"
            let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .wav)
            let samples = (0..<16000).map { (i: Int) -> Float in
                let decay: Double = exp(-Double(i) / 2000)
                return Float(0.4 * decay * sin(Double(i) * 0.03))
            }
            try samples.withUnsafeBufferPointer { try writer.write($0) }
            try writer.close()
            try database.setEventClip(row.id!, path: path, sha256: try FileChecksum.sha256(ofFileAt: path))
        }
        return (database, sessions, all)
    }

    @Test func writesPDFHTMLCSVAndJSONFromTheStoreWhileItIsOpen() throws {
        let directory = try TemporaryDirectory(prefix: "report-command")
        let store = try Self.makeStore(in: directory)
        let output = directory.appending("out")
        // Each session runs from 20:00 for about 6.3 h, so the second one ends after midnight on the 22nd.
        let result = try BuiltProduct.run("footstepctl", [
            "report", "--state-dir", directory.appending("state"), "--period", "2026-11-20..2026-11-22",
            "--format", "pdf,html,csv,json", "-o", output, "--time-zone", "Europe/London", "--address", "Flat 2", "--json",
            "--rule", "events_per_hour>20,night,Busy hours",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        struct Summary: Decodable {
            struct File: Decodable { var format: String; var path: String; var bytes: Int }
            var files: [File]
            var events: Int
            var clipsCopied: Int
        }
        let summary = try JSONDecoder().decode(Summary.self, from: Data(result.stdout.utf8))
        #expect(summary.files.map(\.format) == ["pdf", "html", "csv", "json"])
        #expect(summary.events == store.events.count)
        for file in summary.files {
            #expect(FileManager.default.fileExists(atPath: file.path) && file.bytes > 0)
            #expect(file.path.hasPrefix(output + "/footstep-report-2026-11-20_2026-11-22."))
        }

        let csv = try String(contentsOfFile: summary.files[2].path, encoding: .utf8)
        #expect(TextReportTests.parseCSV(csv).count - 1 == store.events.count)

        let json = try ReportJSON.decoder.decode(ReportJSON.self, from: Data(contentsOf: URL(fileURLWithPath: summary.files[3].path)))
        #expect(json.summary.footsteps == store.events.filter { $0.kind == .footstep }.count)
        #expect(json.calibration.status == "calibrated" && json.calibration.offsetDB == 110)
        #expect(json.summary.bouts.count == 2)
        #expect(json.rules.map(\.name).last == "Busy hours")
        #expect(json.events.filter { $0.clipPath != nil }.count == 40)
        #expect(json.events.first { !$0.notes.isEmpty }?.notes == "bang, \"loud\"")

        let html = try String(contentsOfFile: summary.files[1].path, encoding: .utf8)
        // The ten loudest events include clipped ones from session 1 (same levels repeat in both sessions).
        #expect(html.contains("<audio controls"))
        #expect(html.contains("data:audio/wav;base64,UklGR"))  // "RIFF"
        #expect(!html.contains("http://") && !html.contains("https://"))

        // Every listed event's clip is copied next to the HTML, byte for byte, and linked relatively.
        let clipped = json.events.filter { $0.clipPath != nil }
        #expect(summary.clipsCopied == clipped.count)
        for event in clipped {
            let name = (event.clipPath! as NSString).lastPathComponent
            let copy = "\(output)/clips/\(name)"
            #expect(try FileChecksum.sha256(ofFileAt: copy) == event.clipSha256, "\(copy)")
            #expect(html.contains("<a href=\"clips/\(name)\">\(name)</a>"), "no link to \(name)")
        }

        let pages = try ReportTools.info(summary.files[0].path)["Pages"].flatMap(Int.init) ?? 0
        #expect(pages >= 6)
        let text = try ReportTools.run("pdftotext", [summary.files[0].path, "-"])
        #expect(text.contains("calibrated (+110.0 dB, 2026-11-19)"))
        _ = store.database  // kept open for writing during the run
    }

    @Test func aSessionReportCoversOnlyThatSession() throws {
        let directory = try TemporaryDirectory(prefix: "report-session")
        let store = try Self.makeStore(in: directory)
        let result = try BuiltProduct.run("footstepctl", [
            "report", "--database", directory.appending("state/footstepd.db"), "--session", String(store.sessions[1]),
            "--format", "csv", "-o", directory.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let path = try #require(result.stdout.split(separator: "\n").first.map(String.init))
        #expect(path.hasSuffix("/footstep-report-session\(store.sessions[1]).csv"))
        let rows = TextReportTests.parseCSV(try String(contentsOfFile: path, encoding: .utf8))
        #expect(rows.count - 1 == 150)
        #expect(rows.dropFirst().allSatisfy { $0[1] == String(store.sessions[1]) })
    }

    /// A reviewed store: `footstepctl report` leaves the rejected footsteps out of its counts and lists them with
    /// the reviewer and the reason.
    @Test func aReportOfAReviewedSessionLeavesTheRejectedOutAndListsThem() throws {
        let directory = try TemporaryDirectory(prefix: "report-review")
        let store = try Self.makeStore(in: directory)
        let session = store.sessions[1]
        let footsteps = try store.database.events(EventFilter(sessionId: session, kind: .footstep, limit: 10_000)).items
        let rejected = footsteps.prefix(7).map { $0.id! }
        try store.database.review(.events(rejected), .reject, by: Reviewer(uid: 1000, name: "alice"), reason: "the radio")
        try store.database.review(.events(footsteps.dropFirst(7).prefix(5).map { $0.id! }), .confirm, by: Reviewer(uid: 1000, name: "alice"))
        let result = try BuiltProduct.run("footstepctl", [
            "report", "--database", directory.appending("state/footstepd.db"), "--session", String(session),
            "--format", "json,html", "-o", directory.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let paths = result.stdout.split(separator: "\n").map(String.init)
        let jsonPath = try #require(paths.first { $0.hasSuffix(".json") })
        let json = try ReportJSON.decoder.decode(ReportJSON.self, from: Data(contentsOf: URL(fileURLWithPath: jsonPath)))
        #expect(json.summary.footsteps == footsteps.count - 7)
        #expect(json.rejectedEvents.compactMap(\.id) == rejected)
        #expect(json.rejectedEvents.allSatisfy { $0.review?.reviewer == "alice" && $0.review?.reason == "the radio" })
        #expect(!json.events.contains { rejected.contains($0.id ?? 0) })
        #expect(json.events.filter { $0.review?.verdict == "confirmed" }.count == 5)
        let html = try String(contentsOfFile: try #require(paths.first { $0.hasSuffix(".html") }), encoding: .utf8)
        #expect(html.contains("<h3>Rejected on review</h3>"))
        #expect(html.contains("<td class=\"l\">the radio</td><td class=\"l\">alice</td>"))
    }

    @Test func theConfigurationFilesReportsSectionIsUsedAndOptionsWin() throws {
        let directory = try TemporaryDirectory(prefix: "report-config")
        _ = try Self.makeStore(in: directory)
        let reports = directory.appending("reports")
        let config = directory.appending("footstepd.toml")
        try """
            [paths]
            state_dir = "\(directory.appending("state"))"
            [reports]
            quiet_hours = "22:00-06:30"
            address = "Flat 2, 10 Example Road"
            notes = "Complaint reference 123"
            directory = "\(reports)"
            keep = 2
            """.write(toFile: config, atomically: true, encoding: .utf8)
        func report(_ period: String, _ extra: [String] = []) throws -> [String: Any] {
            let result = try BuiltProduct.run(
                "footstepctl", ["report", "--config", config, "--period", period, "--format", "json,csv"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            let path = try #require(result.stdout.split(separator: "\n").first { $0.hasSuffix(".json") }.map(String.init))
            #expect(path.hasPrefix(reports + "/"))
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let first = try report("2026-11-20..2026-11-21")
        #expect(first["address"] as? String == "Flat 2, 10 Example Road")
        #expect(first["notes"] as? String == "Complaint reference 123")
        #expect((first["period"] as? [String: Any])?["quietHours"] as? String == "22:00-06:30")
        // The command line wins.
        let second = try report("2026-11-21..2026-11-22", ["--address", "Flat 3", "--quiet-hours", "23:30-07:00"])
        #expect(second["address"] as? String == "Flat 3")
        #expect((second["period"] as? [String: Any])?["quietHours"] as? String == "23:30-07:00")
        #expect(second["notes"] as? String == "Complaint reference 123")
        // keep = 2: a third report deletes the oldest (both of its files).
        Thread.sleep(forTimeInterval: 1.1)
        _ = try report("2026-11-20..2026-11-22")
        let left = try FileManager.default.contentsOfDirectory(atPath: reports).filter { $0.hasPrefix("footstep-report-") }.sorted()
        #expect(left.count == 4, "\(left)")
        #expect(!left.contains { $0.contains("2026-11-20..2026-11-21") || $0.contains("20261120-20261121") }, "\(left)")

        // A configuration named on the command line must exist and be valid.
        let missing = try BuiltProduct.run("footstepctl", ["report", "--config", directory.appending("none.toml")])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("none.toml: no such file"))
        try "[reports]\nkeep = 0\n".write(toFile: config, atomically: true, encoding: .utf8)
        let invalid = try BuiltProduct.run("footstepctl", ["report", "--config", config])
        #expect(invalid.status != 0)
        #expect(invalid.stderr.contains("reports.keep"))
    }

    @Test func aMissingDatabaseOrBadPeriodIsExplained() throws {
        let directory = try TemporaryDirectory(prefix: "report-errors")
        let missing = try BuiltProduct.run("footstepctl", ["report", "--state-dir", directory.appending("nowhere"), "-o", directory.path])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no footstepd database at \(directory.appending("nowhere"))/footstepd.db"))

        _ = try Self.makeStore(in: directory)
        let badPeriod = try BuiltProduct.run("footstepctl", ["report", "--state-dir", directory.appending("state"), "--period", "fortnight", "-o", directory.path])
        #expect(badPeriod.status != 0)
        #expect(badPeriod.stderr.contains("--period 'fortnight'"))
        let badFormat = try BuiltProduct.run("footstepctl", ["report", "--format", "pdf,docx", "-o", directory.path])
        #expect(badFormat.status != 0)
        #expect(badFormat.stderr.contains("--format"))
    }
}
