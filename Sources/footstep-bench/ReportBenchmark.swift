import FootstepAudio
import FootstepCore
import FootstepStore
import Foundation

/// `footstep-bench report [--events N] [--days D] [--clips N] [--data DIR]`: the cost of the
/// evidence report on a busy store. Builds (once, cached under `bench-data/`) a store of
/// `days` daily sessions with `events` events, a level row per minute, bouts, a
/// calibration and `clips` clips (default 10) for events louder than all others; then times `footstepctl report` (the release binary next
/// to this one) writing the PDF and the HTML for the whole range, and prints the wall and
/// CPU seconds of each run with footstepctl's own breakdown.
/// Target: ≤ 5 s for 30 days and 100,000 events.
enum ReportBenchmark {
    static let first = ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z")!

    static func run(arguments: [String]) throws {
        var events = 100_000, days = 30, clips = 10
        var data = "bench-data"
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--events": events = Int(remaining.popFirst() ?? "") ?? events
            case "--days": days = Int(remaining.popFirst() ?? "") ?? days
            case "--clips": clips = Int(remaining.popFirst() ?? "") ?? clips
            case "--data": data = remaining.popFirst() ?? data
            default:
                print("usage: footstep-bench report [--events N] [--days D] [--clips N] [--data DIR]")
                return
            }
        }
        // v2: the ten clipped events are the loudest of the whole range, so the report reads,
        // analyses and embeds their clips (v1 clipped day 1's loudest, which were not in the top ten).
        // The schema's last migration is in the name: a store built by an older build is rebuilt.
        let schema = FootstepDatabase.migrator.migrations.last ?? "v0"
        let directory = "\(data)/report-v2-\(schema)-\(days)d-\(events)" + (clips == 10 ? "" : "-\(clips)clips")
        let database = "\(directory)/footstepd.db"
        if !FileManager.default.fileExists(atPath: "\(directory)/complete") {
            try? FileManager.default.removeItem(atPath: directory)
            let start = Date()
            try build(at: directory, events: events, days: days, clips: clips)
            _ = FileManager.default.createFile(atPath: "\(directory)/complete", contents: Data())
            print(String(format: "built %@: %d events, %d level minutes in %.1f s", database, events, days * 1440, Date().timeIntervalSince(start)))
        }

        let ctl = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("footstepctl").path
        guard FileManager.default.isExecutableFile(atPath: ctl) else {
            print("footstep-bench report: build footstepctl next to this binary first (swift build -c release --product footstepctl)")
            return
        }
        let output = "\(directory)/out"
        let period = "2026-11-01..2026-11-\(String(format: "%02d", days))"
        for formats in ["pdf,html", "pdf", "html", "csv,json"] {
            let started = Date()
            let cpuBefore = childCPUSeconds()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ctl)
            process.arguments = ["report", "--database", database, "--period", period, "--time-zone", "UTC", "--format", formats, "-o", output, "--json"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let stdout = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let seconds = Date().timeIntervalSince(started)
            let cpu = childCPUSeconds() - cpuBefore
            guard process.terminationStatus == 0 else {
                print("footstepctl report failed (status \(process.terminationStatus))")
                return
            }
            print(String(format: "report %-9@ %6.2f s wall %6.2f s CPU  %@", formats, seconds, cpu, breakdown(stdout)))
        }
    }

    /// User + system CPU seconds of the finished children so far (wall time alone misleads on a shared machine).
    static func childCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// "load 0.80 s, build 0.40 s, pdf 1.10 s (2.1 MB), html 0.50 s (3.0 MB)" from `--json`.
    static func breakdown(_ json: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else { return "" }
        var parts: [String] = []
        if let seconds = object["seconds"] as? [String: Double] {
            for key in ["load", "build", "clips"] { if let value = seconds[key] { parts.append(String(format: "%@ %.2f s", key, value)) } }
        }
        if let clips = object["clipsCopied"] as? Int, clips > 0 { parts.append("\(clips) clips copied") }
        for file in object["files"] as? [[String: Any]] ?? [] {
            let bytes = Double(file["bytes"] as? Int ?? 0) / 1e6
            parts.append(String(format: "%@ %.2f s (%.1f MB)", file["format"] as? String ?? "?", file["seconds"] as? Double ?? 0, bytes))
        }
        return parts.joined(separator: ", ")
    }

    /// One session per day; 70 % of the events at night (22:00-06:00 UTC).
    static func build(at directory: String, events: Int, days: Int, clips clipCount: Int) throws {
        let database = try FootstepDatabase.open(path: "\(directory)/footstepd.db")
        try database.addCalibration(measuredAt: first.addingTimeInterval(-86400), offsetDB: 108.5, method: "94 dB calibrator", reference: "bench")
        var generator = SeededRandom(seed: 2026)
        let perDay = events / days
        for day in 0..<days {
            let dayStart = first.addingTimeInterval(Double(day) * 86400)
            let session = try database.createSession(startedAt: dayStart, device: "synthetic:bench", sampleRate: 16000, timeZone: "UTC", title: "day \(day + 1)")
            let id = session.id!
            var times = (0..<(day == days - 1 ? events - perDay * (days - 1) : perDay)).map { _ -> Double in
                Double.random(in: 0..<1, using: &generator) < 0.7
                    ? (Double.random(in: -2 * 3600..<6 * 3600, using: &generator) + 86400).truncatingRemainder(dividingBy: 86400)
                    : Double.random(in: 0..<86400, using: &generator)
            }
            times.sort()
            // On the first day, `clipCount` events louder than any other (62-66 dB against 30-62) get
            // clips: the ten loudest are embedded in the HTML, every listed one is copied next to it.
            let clipped = day == 0 ? Set(times.indices.shuffled(using: &generator).prefix(clipCount)) : []
            let batch = times.enumerated().map { index, seconds -> NewEvent in
                let isStep = Double.random(in: 0..<1, using: &generator) < 0.85
                return NewEvent(
                    sessionId: id, frameOffset: Int64(seconds * 16000), timestamp: dayStart.addingTimeInterval(seconds),
                    measurements: EventMeasurements(
                        duration: 0.2, kind: isStep ? .footstep : .other,
                        type: isStep ? FootstepType.classified.randomElement(using: &generator)! : .unknown,
                        confidence: Double.random(in: 0.5..<1, using: &generator), intensity: .medium,
                        laMax: Double.random(in: clipped.contains(index) ? 62..<66 : 30..<62, using: &generator),
                        lcMax: 60, peakDBFS: -25, sel: 35),
                    notes: index % 500 == 0 ? "noted by the tenant" : "")
            }
            let ids = try database.appendEvents(batch)
            try database.appendLevels((0..<1440).map { minute in
                let laeq = Double.random(in: 25..<42, using: &generator)
                return LevelMinuteRecord(
                    sessionId: id, startedAt: dayStart.addingTimeInterval(Double(minute) * 60), laeq: laeq, lceq: laeq + 12,
                    lafMax: laeq + 10, lafMin: laeq - 8, la10: laeq + 3, la90: laeq - 5)
            })
            for bout in 0..<20 {
                let begin = dayStart.addingTimeInterval(Double(bout) * 4000)
                try database.appendBout(BoutRecord(
                    sessionId: id, startedAt: begin, endedAt: begin.addingTimeInterval(6), steps: 10, cadence: 1.7,
                    dominantType: .heelStrike, kind: .walking))
            }
            // Their clips (5 s FLAC, about the size the daemon keeps).
            let samples = (0..<(5 * 16000)).map { (i: Int) -> Float in
                let decay: Double = exp(-Double(i % 16000) / 3000)
                return Float(0.3 * decay * sin(Double(i) * 0.024))
            }
            for index in clipped.sorted() {
                let eventId = ids[index]
                let path = "\(directory)/clips/event-\(eventId).flac"
                try FileManager.default.createDirectory(atPath: "\(directory)/clips", withIntermediateDirectories: true)
                let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .flac)
                try samples.withUnsafeBufferPointer { try writer.write($0) }
                try writer.close()
                try database.setEventClip(eventId, path: path, sha256: try FileChecksum.sha256(ofFileAt: path))
            }
            try database.endSession(id, at: dayStart.addingTimeInterval(86400))
        }
    }
}
