import CSndfile
import FootstepAudio
import FootstepConfiguration
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import GRDB
import Logging

/// Helpers shared by the daemon tests.
enum DaemonTestSupport {
    static let quietLogger = Logger(label: "footstepd-test") { _ in SwiftLogNoOpLogHandler() }

    /// Renders a synthetic scenario completely (mono).
    static func render(_ spec: String) throws -> (samples: [Float], truth: [GroundTruthEvent], rate: Int) {
        let rendered = try RenderedScenario(spec)
        return (rendered.samples, rendered.truth, rendered.sampleRate)
    }

    /// Frames libsndfile decodes from `path` reading to the end (nil if it cannot open it).
    static func decodedFrames(_ path: String) -> Int64? {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        defer { sf_close(handle) }
        var total: Int64 = 0
        var buffer = [Float](repeating: 0, count: 4096 * Int(info.channels))
        while true {
            let frames = buffer.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress, 4096) }
            if frames <= 0 { break }
            total += Int64(frames)
        }
        return total
    }

    /// Every sample libsndfile decodes from `path` (interleaved).
    static func samples(_ path: String) throws -> [Float] {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else { throw POSIXError(.ENOENT) }
        defer { sf_close(handle) }
        var samples: [Float] = []
        var buffer = [Float](repeating: 0, count: 4096 * Int(info.channels))
        while true {
            let frames = buffer.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress, 4096) }
            if frames <= 0 { break }
            samples.append(contentsOf: buffer[0..<(Int(frames) * Int(info.channels))])
        }
        return samples
    }

    /// Waits until local midnight is at least `margin` seconds away. For tests that
    /// compare the daemon's "events today" with every event they made: at midnight
    /// the daemon starts the new day's count, as it should.
    static func waitClearOfMidnight(margin: Double = 20) async {
        let now = Date()
        let untilMidnight = WallClockZone.local.startOfNextDay(after: now).timeIntervalSince(now)
        if untilMidnight < margin { try? await Task.sleep(for: .seconds(untilMidnight + 1)) }
    }

    /// Waits until the next audio file roll (`recording.roll_interval`'s
    /// default, aligned to midnight UTC) lies beyond what a test records in
    /// `margin` seconds at `speed` times real time, for a test that expects
    /// one file a session: at the boundary the daemon starts a new file, as
    /// it should.
    static func waitClearOfAudioRoll(margin: Double, speed: Double = 1) async {
        let interval = DaemonConfiguration().recording.rollInterval
        let now = Date().timeIntervalSince1970
        let untilRoll = ((now / interval).rounded(.down) + 1) * interval - now
        if untilRoll < margin * speed { try? await Task.sleep(for: .seconds(untilRoll + 1)) }
    }

    static func integrityCheck(_ database: FootstepDatabase) throws -> String? {
        try database.reader.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
    }

    static func events(_ database: FootstepDatabase, session: Int64) throws -> [EventRecord] {
        try database.events(EventFilter(sessionId: session, limit: EventFilter.maximumLimit)).items
    }

    /// The built `footstepd` next to the test bundle, if it was built.
    static var footstepdPath: String? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("footstepd").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    struct Run {
        /// Exit code, or 128 + signal when killed by a signal.
        var status: Int32
        var standardError: String
    }

    /// Starts footstepd with posix_spawn (Foundation's Process deadlocks in
    /// waitUntilExit when several tests spawn at once on Linux). stderr goes
    /// to the returned descriptor (or /dev/null), stdout to /dev/null. With
    /// `notifySocket`, the child's `NOTIFY_SOCKET` is that path (never the
    /// test process's own).
    static func spawnFootstepd(
        _ arguments: [String], captureStandardError: Bool, notifySocket: String? = nil
    ) throws -> (pid: pid_t, standardError: Int32?) {
        var pipeEnds: [Int32] = [-1, -1]
        if captureStandardError {
            guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EIO) }
            // Not inherited by other children spawned meanwhile (their EOF would never come).
            _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        if captureStandardError {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let environment = ProcessInfo.processInfo.environment
            .filter { $0.key != "NOTIFY_SOCKET" && $0.key != "JOURNAL_STREAM" && !$0.key.hasPrefix("WATCHDOG_") }
            .map { "\($0.key)=\($0.value)" } + (notifySocket.map { ["NOTIFY_SOCKET=\($0)"] } ?? [])
        let argv = ([footstepdPath!] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, footstepdPath!, &actions, nil, argv, envp)
        if captureStandardError { close(pipeEnds[1]) }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        return (pid, captureStandardError ? pipeEnds[0] : nil)
    }

    /// Starts footstepd (stderr to /dev/null) and returns once it has told
    /// its notification socket `READY=1`: capture and store are up, so what
    /// it records from then on does not depend on how long start-up took on
    /// a loaded machine. Throws when it is not ready within `timeout` seconds
    /// (the process is then killed).
    static func spawnReadyFootstepd(_ arguments: [String], in directory: String, timeout: Double = 120) throws -> pid_t {
        let socket = try NotifySocket(directory: directory)
        let (pid, _) = try spawnFootstepd(arguments, captureStandardError: false, notifySocket: socket.path)
        let deadline = Date(timeIntervalSinceNow: timeout)
        while let message = socket.receive(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if message.split(separator: "\n").contains("READY=1") { return pid }
        }
        kill(pid, SIGKILL)
        _ = wait(pid)
        throw NotReady(seconds: timeout)
    }

    struct NotReady: Error, CustomStringConvertible {
        var seconds: Double
        var description: String { "footstepd sent no READY=1 within \(seconds) s" }
    }

    /// Waits for `pid`; returns its exit code, or 128 + signal.
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Runs footstepd to its end.
    static func runFootstepd(_ arguments: [String]) throws -> Run {
        let (pid, descriptor) = try spawnFootstepd(arguments, captureStandardError: true)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor!, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        close(descriptor!)
        return Run(status: wait(pid), standardError: String(decoding: data, as: UTF8.self))
    }
}
