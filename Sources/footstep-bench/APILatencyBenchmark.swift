import FootstepConfiguration
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepWire
import Foundation
import Logging

/// `footstep-bench api [--data DIR] [--events N] [--requests N] [--live-seconds S]`:
/// control socket latency against a real daemon (demo source in real time)
/// whose database holds N events (1,000,000 by default, 30 days of them):
/// p50/p99 of `GET /v1/status` and of a one-day `GET /v1/events` page, and the
/// delay from an impact in the audio (the event's sample-accurate onset time)
/// to its line arriving on `/v1/events/live` (p50/p95).
///
/// The database is generated once with batched appends and cached as
/// `DIR/events-N.db` (default `bench-data/api`); each run works on a copy.
/// Aims (issue 5): status ≤ 5 ms and one-day events ≤ 20 ms at p99, live p95 ≤ 500 ms.
enum APILatencyBenchmark {
    static func run(arguments: [String]) async throws {
        let options = try parseOptions(arguments)
        let directory = options["--data"] ?? "bench-data/api"
        let eventCount = Int(options["--events"] ?? "") ?? 1_000_000
        let requests = Int(options["--requests"] ?? "") ?? 2000
        let liveSeconds = Double(options["--live-seconds"] ?? "") ?? 60

        let cached = try cachedDatabase(directory: directory, events: eventCount)
        let work = NSTemporaryDirectory() + "/footstep-bench-api-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work + "/state", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cached.path, toPath: work + "/state/footstepd.db")

        let socket = work + "/control.sock"
        var configuration = DaemonConfiguration()
        configuration.socket.readGroup = ""
        configuration.socket.adminGroup = ""
        let logger = Logger(label: "footstep-bench") { _ in SwiftLogNoOpLogHandler() }
        let (group, daemon, control) = DaemonApplication.assemble(
            configuration: configuration, source: .demo(scenario: "walking:duration=7200,seed=11"),
            options: DaemonOptions(stateDirectory: work + "/state", socketPath: socket, speed: 1),
            logger: logger, handleSignals: false)
        let running = Task { try await group.run() }
        defer { running.cancel() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !(control?.isListening ?? false) || daemon.status.sessionId == nil {
            guard ContinuousClock.now < deadline else { throw ProbeError("the daemon did not start") }
            try await Task.sleep(for: .milliseconds(20))
        }
        say("control socket latency: real daemon, demo source in real time, \(eventCount) events in the store")

        let day = cached.firstDay
        let dayQuery = "/v1/events?from=\(APIJSON.formatDate(day))&to=\(APIJSON.formatDate(day.addingTimeInterval(86_400)))"
        let targets: [(String, String, Int)] = [
            ("GET /v1/status", "/v1/status", requests),
            ("GET /v1/events one day, first page (100)", dayQuery, requests / 2),
            ("GET /v1/events one day, limit=1000", dayQuery + "&limit=1000", requests / 10),
            ("GET /v1/events one day, 5th page (cursor)", try fifthPage(socket: socket, query: dayQuery), requests / 2),
        ]
        for (name, path, count) in targets {
            let timings = try await onThread { try measure(socket: socket, path: path, count: count) }
            say("  " + name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(
                format: " p50 %6.2f ms  p99 %6.2f ms  (%d requests, %d bytes)", timings.p50 * 1000, timings.p99 * 1000,
                count, timings.bytes))
        }

        let delays = try await onThread { try liveDelays(socket: socket, seconds: liveSeconds) }
        if delays.isEmpty {
            say("  impact → /v1/events/live: no events in \(Int(liveSeconds)) s")
        } else {
            let sorted = delays.sorted()
            say(String(
                format: "  impact → /v1/events/live          p50 %6.0f ms  p95 %6.0f ms  max %6.0f ms  (%d events)",
                percentile(sorted, 0.5) * 1000, percentile(sorted, 0.95) * 1000, sorted.last! * 1000, sorted.count))
        }
        say("  capture overruns during the run: \(daemon.status.droppedPeriods)")
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }

    /// `--name value` pairs.
    static func parseOptions(_ arguments: [String]) throws -> [String: String] {
        guard arguments.count % 2 == 0, stride(from: 0, to: arguments.count, by: 2).allSatisfy({ arguments[$0].hasPrefix("--") })
        else {
            throw ProbeError("usage: footstep-bench api [--data DIR] [--events N] [--requests N] [--live-seconds S]")
        }
        return Dictionary(
            stride(from: 0, to: arguments.count, by: 2).map { (arguments[$0], arguments[$0 + 1]) }, uniquingKeysWith: { $1 })
    }

    /// Latency of `count` sequential GETs on one keep-alive connection (after 20 warm-ups).
    static func measure(socket: String, path: String, count: Int) throws -> (p50: Double, p99: Double, bytes: Int) {
        let probe = try UnixHTTPProbe(path: socket)
        var bytes = 0
        for _ in 0..<20 { _ = try probe.get(path) }
        var timings: [Double] = []
        timings.reserveCapacity(count)
        for _ in 0..<count {
            let began = ContinuousClock.now
            let (status, size) = try probe.get(path)
            timings.append(seconds(ContinuousClock.now - began))
            guard status == 200 else { throw ProbeError("\(path) answered \(status)") }
            bytes = size
        }
        timings.sort()
        return (percentile(timings, 0.5), percentile(timings, 0.99), bytes)
    }

    /// The query of the fifth page of `query` (following next_cursor).
    static func fifthPage(socket: String, query: String) throws -> String {
        let probe = try UnixHTTPProbe(path: socket)
        var path = query
        for _ in 0..<4 {
            let page = try APIJSON.decoder.decode(PageResponse<EventResponse>.self, from: try probe.fetch(path).body)
            guard let cursor = page.nextCursor else { break }
            path = query + "&cursor=\(cursor)"
        }
        return path
    }

    /// Seconds from each event's onset to its first arrival on the live stream
    /// (an event sent again with a revised label is not a new arrival).
    static func liveDelays(socket: String, seconds: Double) throws -> [Double] {
        let probe = try UnixHTTPProbe(path: socket)
        let end = Date().addingTimeInterval(seconds)
        var delays: [Double] = []
        var latest: Int64 = 0
        try probe.stream(APIPaths.eventsLive) { line in
            let arrived = Date()
            if let event = try? APIJSON.decoder.decode(EventResponse.self, from: line), event.id > latest,
                event.revisedFrom == nil
            {
                latest = event.id
                delays.append(arrived.timeIntervalSince(event.timestamp))
            }
            return arrived < end
        }
        return delays
    }

    /// The cached database of `events` events (generated when missing) and the first full day in it.
    static func cachedDatabase(directory: String, events: Int) throws -> (path: String, firstDay: Date) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/events-\(events).db"
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        let firstDay = start.addingTimeInterval(86_400)
        if FileManager.default.fileExists(atPath: path) { return (path, firstDay) }
        let partial = path + ".partial"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        say("generating \(events) events into \(path) (once)…")
        let began = ContinuousClock.now
        try generate(events: events, start: start, path: partial)
        // The pool is closed: SQLite has checkpointed and removed the WAL.
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        say(String(format: "  generated in %.1f s", seconds(ContinuousClock.now - began)))
        return (path, firstDay)
    }

    /// Appends `events` events spread over 30 days from `start`, in batches of 10,000.
    private static func generate(events: Int, start: Date, path: String) throws {
        let database = try FootstepDatabase.open(path: path)
        let span = 30.0 * 86_400
        let session = try database.createSession(startedAt: start, device: "bench", sampleRate: 16_000)
        var random = SeededRandom(seed: 42)
        let types = FootstepType.allCases
        let batch = 10_000
        for first in stride(from: 0, to: events, by: batch) {
            let chunk = (first..<min(events, first + batch)).map { index in
                let seconds = span * Double(index) / Double(events)
                let footstep = random.unit() < 0.85
                return NewEvent(
                    sessionId: session.id!, frameOffset: Int64(seconds * 16_000), timestamp: start.addingTimeInterval(seconds),
                    measurements: EventMeasurements(
                        duration: 0.1 + random.unit() * 0.2, kind: footstep ? .footstep : .other,
                        type: footstep ? types[Int(random.next() % UInt64(types.count))] : .unknown,
                        confidence: random.unit(), intensity: .medium, laMax: 35 + random.unit() * 30,
                        lcMax: 50 + random.unit() * 20, peakDBFS: -30 + random.unit() * 20,
                        sel: 30 + random.unit() * 20, backgroundLA: 28))
            }
            try database.appendEvents(chunk)
        }
        try database.endSession(session.id!, at: start.addingTimeInterval(span))
    }

    /// Runs blocking socket work off Swift concurrency's threads (the daemon needs them).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Prints a line at once (stdout may be a pipe to `make bench`).
    static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
