import FootstepAudio
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import Testing

@Suite("Daemon control: device loss, pause/resume, reload")
struct DaemonControlTests {
    @Test(.enabled(if: PulseNullSink.isAvailable, "pulseaudio is not installed"))
    func deviceLossIsRetriedRecordedAsAGapAndCaptureResumes() async throws {
        let pulse = try PulseNullSink()
        try pulse.start()
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let tree = try ALSAConfigurationTree(text: pulse.configurationText)
        let (group, daemon) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .alsa(device: pulse.pcmName, tree: tree),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }

        #expect(await waitUntil(10) { daemon.status.state == .recording && daemon.status.capturedFrames > 8000 })
        pulse.stop()
        #expect(await waitUntil(7) { daemon.status.state == .deviceLost })
        try await Task.sleep(for: .seconds(1))
        try pulse.start()
        let back = ContinuousClock.now
        let resumed = await waitUntil(10) { daemon.status.state == .recording }
        #expect(resumed)
        #expect(ContinuousClock.now - back < .seconds(5))
        let framesAtResume = daemon.status.capturedFrames
        #expect(await waitUntil(5) { daemon.status.capturedFrames > framesAtResume + 8000 })
        await group.triggerGracefulShutdown()
        try await running.value

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        #expect(session.status == .completed)
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.count == 1)
        if let gap = gaps.first {
            #expect(gap.reason == "capture device lost")
            #expect(gap.endedAt.timeIntervalSince(gap.startedAt) > 0.9)
        }
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count == 2)
        #expect(files.allSatisfy { $0.closedAt != nil && DaemonTestSupport.decodedFrames($0.path) == $0.frames })
        // The second file is re-anchored to the wall clock after the gap.
        if files.count == 2, let gap = gaps.first {
            #expect(abs(files[1].startedAt.timeIntervalSince(gap.endedAt)) < 0.5)
        }
    }

    @Test func pauseAndResumeChangeTheSessionStatusAndStartANewFile() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let (group, daemon) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking:duration=6"),
            options: DaemonOptions(stateDirectory: state, speed: 2), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }
        #expect(await waitUntil(5) { daemon.status.capturedFrames > 8000 })
        let session0 = try #require(daemon.status.sessionId)
        // The reply says what happened, and the state shows it when the reply comes.
        #expect(await daemon.send(.pause) == .paused(session: session0))
        #expect(daemon.status.state == .paused)
        #expect(await daemon.send(.pause) == .refused("already paused"))
        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        #expect(try database.sessions().first?.session.status == .paused)
        try await Task.sleep(for: .milliseconds(500))
        #expect(await daemon.send(.resume) == .resumed(session: session0))
        #expect(daemon.status.state == .recording)
        #expect(await daemon.send(.resume) == .refused("nothing to resume: the daemon is recording"))
        #expect(await daemon.send(.start) == .refused("already recording (session \(session0)); nothing to start"))
        try await running.value
        let session = try #require(try database.sessions().first?.session)
        #expect(session.status == .completed)
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count == 2)
        // Frames read while paused are not recorded, and the pause is stored as a gap of their length, so
        // that a report's coverage neither counts it as recorded nor hides it.
        let written = files.map(\.frames).reduce(0, +)
        #expect(written < 6 * 16000)
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.map(\.reason) == ["recording paused"])
        let paused = Double(6 * 16000 - written) / 16000
        #expect(abs((gaps.first?.seconds ?? 0) - paused) < 0.3, "gap \(gaps.first?.seconds ?? 0) s, paused \(paused) s")
    }

    @Test func commandsReplyWithWhatHappened() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let (group, daemon) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking:duration=600"),
            options: DaemonOptions(stateDirectory: state, speed: 4), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }
        #expect(await waitUntil(5) { daemon.status.sessionId != nil })
        let first = try #require(daemon.status.sessionId)
        // A write runs on the service task, between the events it stores.
        try await daemon.write { try $0.renameSession(first, title: "landing, first night") }
        let renamed = try await daemon.write { try $0.session(first)?.session.title }
        #expect(renamed == "landing, first night")

        #expect(await daemon.send(.stop) == .stopped(session: first))
        #expect(daemon.status.sessionId == nil)
        #expect(daemon.status.state == .idle)
        #expect(await daemon.send(.stop) == .refused("nothing to stop: no session is open"))
        #expect(await daemon.send(.pause) == .refused("nothing to pause: no session is recording"))
        #expect(await daemon.send(.calibrate(offsetDB: 90)) == .calibrated(session: nil))
        #expect(daemon.configuration.levels.calibrationOffset == 90)

        guard case let .started(second) = await daemon.send(.start) else {
            Issue.record("start did not start a session")
            return
        }
        #expect(second != first)
        #expect(daemon.status.sessionId == second)
        // A new calibration ends the session; the reply names the one that measures with it.
        guard case let .calibrated(.some(third)) = await daemon.send(.calibrate(offsetDB: 91)) else {
            Issue.record("calibrate did not start a new session")
            return
        }
        #expect(third != second)
        #expect(daemon.status.sessionId == third)
        #expect(daemon.configuration.levels.calibrationOffset == 91)

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(await daemon.send(.start) == .shuttingDown)
        await #expect(throws: DaemonError.self) { try await daemon.write { try $0.setSessionNotes(first, notes: "late") } }
        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        #expect(try database.sessions().map(\.session.status) == [.completed, .completed, .completed])
        // Each says why it ended, for the reports' coverage.
        #expect(try database.sessions().map(\.session.endReason) == [
            "stopped on request (footstepctl stop)", "the calibration changed; the next session measures with it",
            "footstepd stopped (systemctl stop or a signal)",
        ])
    }

    @Test func aCommandNobodyAnswersTimesOut() async throws {
        let directory = try TemporaryDirectory()
        // Never run: nothing takes the command.
        let daemon = FootstepDaemonService(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking"),
            options: DaemonOptions(stateDirectory: directory.path), logger: DaemonTestSupport.quietLogger)
        #expect(await daemon.send(.start, within: .milliseconds(100)) == .timedOut)
    }

    @Test func reloadKeepsTheOldConfigurationWhenTheNewFileIsInvalid() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("footstepd.toml")
        try "[detection]\nthreshold = 2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = FootstepDaemonService(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking"),
            options: DaemonOptions(stateDirectory: directory.path), logger: DaemonTestSupport.quietLogger)
        let reload = ConfigurationReloadService(path: path, daemon: daemon, logger: DaemonTestSupport.quietLogger)
        #expect(reload.reload())
        #expect(daemon.configuration.detection.threshold == 2)
        #expect(daemon.configuration.stateDirectory == directory.path)  // command-line overrides survive a reload
        try "[detection]\nthreshold = \"high\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(!reload.reload())
        #expect(daemon.configuration.detection.threshold == 2)
    }

    @Test func sourcesParse() throws {
        #expect(try SourceChoice(parsing: "demo") == .demo(scenario: "night"))
        #expect(try SourceChoice(parsing: "demo:walking:seed=3") == .demo(scenario: "walking:seed=3"))
        #expect(try SourceChoice(parsing: "file:/tmp/a.flac") == .file(path: "/tmp/a.flac"))
        #expect(try SourceChoice(parsing: "alsa:hw:1,0") == .alsa(device: "hw:1,0"))
        #expect(try SourceChoice(parsing: "alsa") == .alsa(device: nil))
        #expect(throws: AudioSourceError.self) { try SourceChoice(parsing: "mic:0") }
    }
}
