import FootstepAudio
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import Synchronization
import Testing

@Suite("Daemon schedule and clock", .serialized)
struct DaemonScheduleTests {
    /// A clock that starts at `start` and runs `rate` times faster than real time.
    static func fastClock(startingAt start: Date, rate: Double) -> @Sendable () -> Date {
        let origin = Date()
        return { start.addingTimeInterval(Date().timeIntervalSince(origin) * rate) }
    }

    /// Today at `hour:minute:second` local time.
    static func today(_ hour: Int, _ minute: Int, _ second: Int = 0) -> Date {
        Calendar.current.date(bySettingHour: hour, minute: minute, second: second, of: Date())!
    }

    @Test func aScheduleWindowStartsASessionAndItsEndCompletesIt() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        var configuration = DaemonConfiguration()
        configuration.schedule = .windows([try #require(MonitoringSchedule.window(parsing: "daily 22:00-22:01"))])
        var options = DaemonOptions(stateDirectory: state, speed: 1)
        // One schedule minute per real second: the window opens after ~1 s and lasts ~1 s.
        // The times are fixed once: the real day may change while the test runs.
        let start = Self.today(21, 59)
        let (opens, closes) = (start.addingTimeInterval(60), start.addingTimeInterval(120))
        options.scheduleClock = Self.fastClock(startingAt: start, rate: 60)
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=5,duration=3600"), options: options,
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }

        #expect(await waitUntil(0.8) { daemon.status.state == .idle })
        let waiting = daemon.status
        #expect(waiting.schedule == .waiting(until: opens))
        #expect(waiting.schedule.description == "waiting until 22:00")
        #expect(waiting.line.contains("waiting until 22:00"))
        #expect(waiting.sessionId == nil)

        #expect(await waitUntil(2) { daemon.status.state == .recording })
        #expect(daemon.status.schedule == .active(until: closes))
        #expect(daemon.status.schedule.description == "in window until 22:01")
        let sessionId = try #require(daemon.status.sessionId)

        #expect(await waitUntil(2.5) { daemon.status.state == .idle })
        let tomorrow = Calendar.current.date(byAdding: .day, value: 1, to: opens)!
        #expect(daemon.status.schedule == .waiting(until: tomorrow))
        await group.triggerGracefulShutdown()
        try await running.value

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let sessions = try database.sessions().map(\.session)
        #expect(sessions.map(\.id) == [sessionId])
        let session = try #require(sessions.first)
        #expect(session.status == .completed)
        #expect(session.endReason == "the monitoring window closed (monitoring schedule)")
        // About one schedule minute = one real second of audio.
        let seconds = session.endedAt!.timeIntervalSince(session.startedAt)
        #expect(seconds > 0.4 && seconds < 1.8, "\(seconds) s")
    }

    @Test func anAlwaysScheduleRecordsAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let (group, daemon) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking:duration=2"),
            options: DaemonOptions(stateDirectory: directory.appending("state"), speed: 4),
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }
        #expect(await waitUntil(1) { daemon.status.state == .recording })
        #expect(daemon.status.schedule == .always)
        try await running.value
    }

    @Test func theClockIsReanchoredToTheWallClockAtEachRollAndTheDriftJournaled() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        var configuration = DaemonConfiguration()
        configuration.recording.rollInterval = 1
        configuration.recording.audioFormat = .wav
        // A "device" running twice as fast as the wall clock: every roll finds the
        // sample clock ahead by about a second and re-anchors it.
        var options = DaemonOptions(stateDirectory: state, speed: 2)
        options.reanchorAtRoll = true
        let messages = LogCollector()
        let logger = Logger(label: "test") { _ in messages }
        let (group, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=8,duration=8"), options: options,
            logger: logger, handleSignals: false, controlSocket: false)
        try await group.run()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count >= 3)
        #expect(files.map(\.frames).reduce(0, +) == 8 * 16000)
        for (previous, next) in zip(files, files.dropFirst()) {
            #expect(next.startFrame == previous.startFrame + previous.frames)
            // Wall clock between file starts is about half the audio they hold.
            let wall = next.startedAt.timeIntervalSince(previous.startedAt)
            let audio = Double(previous.frames) / 16000
            #expect(abs(wall - audio / 2) < 0.25, "file \(previous.path): \(audio) s of audio in \(wall) s")
        }
        // Events are timed by the file they fall in (its re-anchored start).
        for event in try DaemonTestSupport.events(database, session: session.id!) {
            let file = try #require(files.last { $0.startFrame <= event.frameOffset })
            let expected = file.startedAt.addingTimeInterval(Double(event.frameOffset - file.startFrame) / 16000)
            #expect(abs(event.timestamp.timeIntervalSince(expected)) < 0.01)
        }
        let drifts = messages.entries.filter { $0.message.contains("re-anchored to the wall clock at file roll") }
        #expect(drifts.count == files.count - 1)
        // The device runs ahead of the wall clock: the drift is negative at every roll and
        // settles near one roll interval (1 s of audio arrives in 0.5 s).
        let values = drifts.map { Int($0.metadata["footstep.clock_drift_ms"] ?? "0")! }
        #expect(values.allSatisfy { $0 < 0 }, "\(values)")
        #expect((values.last ?? 0) < -600, "\(values)")
    }
}

/// A log handler that keeps every entry (tests read what went to the journal).
final class LogCollector: LogHandler, @unchecked Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var entries: [Entry] { storage.withLock { $0 } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let entry = Entry(
            level: event.level, message: "\(event.message)",
            metadata: (event.metadata ?? [:]).mapValues { "\($0)" })
        storage.withLock { $0.append(entry) }
    }
}
