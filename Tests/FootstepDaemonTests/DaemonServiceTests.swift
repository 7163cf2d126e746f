import FootstepAudio
import FootstepConfiguration
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import GRDB
import Logging
import Testing

// NOTIFY_SOCKET and WATCHDOG_* are process-wide: this test joins the serialized notifier suite.
extension SystemdNotifierTests {
    @Test func daemonCapturesFromALSAFilePluginNotifiesAndStoresTheScenario() async throws {
        let directory = try TemporaryDirectory()
        let (samples, truth, rate) = try DaemonTestSupport.render("walking:seed=101,duration=20,snr=14,spread=4,ceiling=on")
        let pcm = try ALSAFilePluginPCM(samples: samples, in: directory.path)
        // 20 s of audio in one file.
        await DaemonTestSupport.waitClearOfAudioRoll(margin: 30)
        let socket = try NotifySocket(directory: directory.path)
        setenv("NOTIFY_SOCKET", socket.path, 1)
        setenv("WATCHDOG_USEC", "1000000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        defer {
            unsetenv("NOTIFY_SOCKET")
            unsetenv("WATCHDOG_USEC")
            unsetenv("WATCHDOG_PID")
        }
        var configuration = DaemonConfiguration()
        configuration.capture.sampleRate = rate
        configuration.levels.interval = 5
        let state = directory.appending("state")
        var options = DaemonOptions(stateDirectory: state, speed: 8, maximumFrames: pcm.frames)
        options.captureRingPeriods = 1024  // the unpaced file plugin delivers all 20 s at once
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .alsa(device: pcm.name, tree: pcm.configuration),
            options: options,
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let started = ContinuousClock.now
        try await group.run()
        let elapsed = ContinuousClock.now - started
        let messages = socket.drain()
        #expect(daemon.status.state == .stopping)
        #expect(elapsed >= .seconds(2.2))  // paced at 8x: 20 s of audio in 2.5 s

        // sd_notify: READY once capture and store were up, watchdog pings while frames arrived, STOPPING at the end.
        #expect(messages.first?.hasPrefix("READY=1\n") == true)
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 3)
        #expect(messages.last?.hasPrefix("STOPPING=1") == true)

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let sessions = try database.sessions()
        #expect(sessions.count == 1)
        let session = try #require(sessions.first?.session)
        #expect(session.status == .completed)
        #expect(session.device == "alsa:\(pcm.name)")
        #expect(abs(session.endedAt!.timeIntervalSince(session.startedAt) - 20) < 0.01)

        // Events: onsets match the scenario's ground truth within ±50 ms; timestamps are sample-accurate.
        let events = try DaemonTestSupport.events(database, session: session.id!)
        let detected = events.map { Double($0.frameOffset) / Double(rate) }
        let score = DetectionScore(detected: detected, truth: truth.map(\.onset), tolerance: 0.05)
        #expect(score.recall >= 0.95, "\(score)")
        #expect(score.precision >= 0.95, "\(score)")
        for event in events {
            let expected = session.startedAt.addingTimeInterval(Double(event.frameOffset) / Double(rate))
            #expect(abs(event.timestamp.timeIntervalSince(expected)) < 0.001)
        }
        #expect(try database.verifyChain().isIntact)

        // Levels: 5 s intervals covering the 20 s.
        let levels = try database.levels(session: session.id!).items
        #expect(levels.count == 4)
        #expect(abs(levels.map(\.seconds).reduce(0, +) - 20) < 0.01)

        // Audio: one closed FLAC with every captured frame and its SHA-256.
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count == 1)
        let file = try #require(files.first)
        #expect(file.frames == Int64(pcm.frames))
        #expect(file.sha256 == (try FileChecksum.sha256(ofFileAt: file.path)))
        #expect(DaemonTestSupport.decodedFrames(file.path) == Int64(pcm.frames))
        #expect(events.allSatisfy { $0.audioFileId == file.id })
    }
}

@Suite("The daemon in process and as a process")
struct DaemonServiceTests {
    @Test(arguments: [AudioFileContainer.flac, .wav])
    func rollingWithAShortIntervalGivesContiguousFilesHoldingEveryFrame(container: AudioFileContainer) async throws {
        let directory = try TemporaryDirectory()
        var configuration = DaemonConfiguration()
        configuration.recording.rollInterval = 2
        configuration.recording.audioFormat = container
        let state = directory.appending("state")
        let (group, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:seed=2,duration=15"),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        try await group.run()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count >= 8 && files.count <= 9)  // 15 s in 2 s wall-clock-aligned pieces
        #expect(files.first?.startFrame == 0)
        for (previous, next) in zip(files, files.dropFirst()) {
            #expect(next.startFrame == previous.startFrame + previous.frames)
            #expect(next.startedAt.timeIntervalSince1970.truncatingRemainder(dividingBy: 2) == 0)
        }
        #expect(files.map(\.frames).reduce(0, +) == 15 * 16000)
        for file in files {
            #expect(file.closedAt != nil)
            #expect(file.format == container)
            #expect(file.path.hasSuffix("-s\(session.id!).\(container.fileExtension)"))
            #expect(DaemonTestSupport.decodedFrames(file.path) == file.frames)
            #expect(file.sha256 == (try FileChecksum.sha256(ofFileAt: file.path)))
        }
        let events = try DaemonTestSupport.events(database, session: session.id!)
        for event in events {
            let file = try #require(files.first { $0.id == event.audioFileId })
            #expect(event.frameOffset >= file.startFrame && event.frameOffset < file.startFrame + file.frames)
        }
    }

    @Test func startupRepairsUnfinishedFilesAndClosesInterruptedSessions() throws {
        let directory = try TemporaryDirectory()
        let audio = directory.appending("audio")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let start = Date(timeIntervalSince1970: 1_763_769_600)
        let session = try database.createSession(startedAt: start, device: "test", sampleRate: 16000)
        let samples = (0..<80000).map { Float(sin(Double($0) * 0.05) * 0.3) }
        var records: [AudioFileRecord] = []
        for (index, container) in [AudioFileContainer.wav, .flac].enumerated() {
            let path = "\(audio)/killed\(index).\(container.fileExtension)"
            let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: container)
            try samples.withUnsafeBufferPointer { try writer.write($0) }
            try writer.close()
            records.append(
                try database.addAudioFile(
                    sessionId: session.id!, path: path, startedAt: start.addingTimeInterval(Double(index) * 5),
                    startFrame: Int64(index) * 80000, sampleRate: 16000, format: container))
        }
        // Leave both as a SIGKILL would: WAV lengths 0, FLAC total_samples 0.
        let wav = try #require(FileHandle(forUpdatingAtPath: records[0].path))
        try wav.seek(toOffset: 40)
        wav.write(Data([0, 0, 0, 0]))
        try wav.close()
        let flac = try #require(FileHandle(forUpdatingAtPath: records[1].path))
        try flac.seek(toOffset: 21)
        let byte = try #require(try flac.read(upToCount: 1)).first!
        try flac.seek(toOffset: 21)
        flac.write(Data([byte & 0xF0, 0, 0, 0, 0]))
        try flac.close()

        let report = try StartupRecovery(database: database, audioDirectory: audio, logger: DaemonTestSupport.quietLogger).run()
        #expect(report.files.map(\.action) == [.wavHeaderRewritten, .flacReencoded])
        #expect(report.files.map(\.frames) == [80000, 80000])
        #expect(report.interruptedSessions == [session.id!])
        let closed = try database.audioFiles(session: session.id!)
        for file in closed {
            #expect(file.closedAt != nil)
            #expect(file.frames == 80000)
            #expect(DaemonTestSupport.decodedFrames(file.path) == 80000)
            #expect(file.sha256 == (try FileChecksum.sha256(ofFileAt: file.path)))
        }
        let ended = try #require(try database.session(session.id!)?.session)
        #expect(ended.status == .interrupted)
        #expect(abs(ended.endedAt!.timeIntervalSince(start) - 10) < 0.001)  // end of the repaired second file
    }

    @Test(.enabled(if: DaemonTestSupport.footstepdPath != nil, "footstepd is not built"))
    func malformedConfigurationExitsWith78NamingFileAndKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("footstepd.toml")
        try "[recording]\naudio_format = \"mp3\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = try DaemonTestSupport.runFootstepd(["--config", path, "--state-dir", directory.appending("state")])
        #expect(run.status == 78)
        #expect(run.standardError.contains(path))
        #expect(run.standardError.contains("recording.audio_format"))
        #expect(run.standardError.split(separator: "\n").count == 1)
        let check = try DaemonTestSupport.runFootstepd(["--config", path, "--check-config"])
        #expect(check.status == 78)
        let missing = try DaemonTestSupport.runFootstepd(["--config", directory.appending("none.toml"), "--check-config"])
        #expect(missing.status == 78)
        #expect(missing.standardError.contains("no such file"))
    }

    @Test(.enabled(if: DaemonTestSupport.footstepdPath != nil, "footstepd is not built"), arguments: ["flac", "wav"])
    func sigkillMidCaptureThenRestartRepairsEverything(format: String) async throws {
        let directory = try TemporaryDirectory()
        let config = directory.appending("footstepd.toml")
        try "[recording]\naudio_format = \"\(format)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let state = directory.appending("state")
        let kills = 3
        // Three sessions at 4x, each under 10 s, each in one file.
        await DaemonTestSupport.waitClearOfAudioRoll(margin: 60, speed: 4)
        for round in 0..<kills {
            let pid = try DaemonTestSupport.spawnReadyFootstepd(
                ["--config", config, "--state-dir", state, "--source", "demo:walking:seed=\(round),duration=3600", "--speed", "4"],
                in: directory.path)
            // Capturing from here. A blocking sleep on purpose: the kill must not wait for a
            // cooperative thread (the child inherits descriptors other tests may be reading to EOF).
            usleep(UInt32((2.5 + 0.3 * Double(round)) * 1_000_000))
            kill(pid, SIGKILL)
            #expect(DaemonTestSupport.wait(pid) == 128 + SIGKILL)
        }
        // A clean run repairs at start-up, records a short scenario and ends.
        let last = try DaemonTestSupport.runFootstepd([
            "--config", config, "--state-dir", state, "--source", "demo:walking:seed=9,duration=2", "--speed", "100",
        ])
        #expect(last.status == 0, "\(last.standardError)")
        #expect(last.standardError.contains("repaired unfinished audio file"))

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        #expect(try DaemonTestSupport.integrityCheck(database) == "ok")
        #expect(try database.verifyChain().isIntact)
        let sessions = try database.sessions().map(\.session)
        #expect(sessions.map(\.status) == Array(repeating: .interrupted, count: kills) + [.completed])
        for session in sessions.prefix(kills) {
            let files = try database.audioFiles(session: session.id!)
            #expect(files.count == 1)
            for file in files {
                #expect(file.closedAt != nil)
                let decoded = try #require(DaemonTestSupport.decodedFrames(file.path))
                #expect(decoded == file.frames)
                // At 4x for >= 2.5 s after READY: seconds of audio survived, up to the last sync
                // (about 10 s on an idle machine).
                #expect(decoded >= 2 * 16000, "\(file.path): \(decoded) frames")
                #expect(file.sha256 == (try FileChecksum.sha256(ofFileAt: file.path)))
                // The interrupted session ends where its audio ends.
                #expect(abs(session.endedAt!.timeIntervalSince(file.endsAt)) < 1.0)
            }
        }
    }
}
