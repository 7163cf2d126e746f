import FootstepAPI
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import ServiceLifecycle

/// A real daemon in process (demo source, temporary state directory) serving
/// its control socket at `socketPath`.
final class APITestDaemon: @unchecked Sendable {
    /// Silent unless `FOOTSTEPD_TEST_LOG` is set (then debug lines go to stderr).
    static let quietLogger: Logger = {
        guard ProcessInfo.processInfo.environment["FOOTSTEPD_TEST_LOG"] != nil else {
            return Logger(label: "footstepd-api-test") { _ in SwiftLogNoOpLogHandler() }
        }
        var logger = Logger(label: "footstepd-api-test") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .debug
        return logger
    }()

    let directory: TemporaryDirectory
    let socketPath: String
    let stateDirectory: String
    let group: ServiceGroup
    let daemon: FootstepDaemonService
    let control: ControlServer
    private var running: Task<Void, any Error>?

    /// - Parameters:
    ///   - scenario: The demo scenario (long enough to outlast the test).
    ///   - source: Another source than the demo (a file, for calibration tests).
    ///   - speed: Pace of the source (multiple of real time); nil is real time.
    ///   - configurationPath: A configuration file (for reload tests).
    ///   - configurationText: A configuration file's text, written beside the state and loaded.
    ///   - rootOnly: Set the socket's groups to one nobody is in (only root is allowed)
    ///     before `configure`; false keeps the configuration's (as installed).
    ///   - configure: Changes to the configuration.
    ///   - server: Changes to the control server's settings.
    init(
        scenario: String = "walking:duration=900,seed=7", source: SourceChoice? = nil, speed: Double? = 4,
        configurationPath: String? = nil, configurationText: String? = nil, rootOnly: Bool = true,
        configure: (inout DaemonConfiguration) -> Void = { _ in },
        server: ((inout ControlServerConfiguration) -> Void)? = nil
    ) throws {
        directory = try TemporaryDirectory(prefix: "footstepd-api")
        socketPath = directory.appending("run/control.sock")
        stateDirectory = directory.appending("state")
        var path = configurationPath
        if let configurationText {
            path = directory.appending("footstepd.toml")
            try configurationText.write(toFile: path!, atomically: true, encoding: .utf8)
        }
        var configuration = try configurationText == nil ? DaemonConfiguration() : DaemonConfiguration.load(path: path!)
        if rootOnly {
            configuration.socket.readGroup = "footstepd-test-none"
            configuration.socket.adminGroup = "footstepd-test-none"
        }
        configure(&configuration)
        var options = DaemonOptions(
            stateDirectory: stateDirectory, socketPath: socketPath, speed: speed, configurationPath: path)
        options.flushInterval = 0.2
        let parts = DaemonApplication.assemble(
            configuration: configuration, source: source ?? .demo(scenario: scenario), options: options,
            logger: Self.quietLogger, handleSignals: false, serverConfiguration: server)
        group = parts.group
        daemon = parts.daemon
        control = parts.control!
    }

    /// Runs `body` with a started daemon on the configuration's own socket groups
    /// (as installed), which is shut down afterwards whatever happens.
    static func with<T>(
        scenario: String = "walking:duration=120,seed=5", source: SourceChoice? = nil, speed: Double? = 4,
        configurationText: String? = nil, _ body: (APITestDaemon) async throws -> T
    ) async throws -> T {
        let daemon = try APITestDaemon(
            scenario: scenario, source: source, speed: speed, configurationText: configurationText, rootOnly: false)
        try await daemon.start(waitForRecording: false)
        do {
            let result = try await body(daemon)
            try await daemon.stop()
            return result
        } catch {
            try? await daemon.stop()
            throw error
        }
    }

    /// Runs the group and waits until the socket listens and a session records.
    func start(waitForRecording: Bool = true) async throws {
        let group = group
        running = Task { try await group.run() }
        guard await waitUntil(10, { self.control.isListening && self.daemon.database != nil }) else {
            throw TestDaemonError("the control socket did not come up")
        }
        if waitForRecording {
            guard await waitUntil(10, { self.daemon.status.sessionId != nil }) else {
                throw TestDaemonError("no session started")
            }
        }
    }

    /// Waits until at least `count` events are stored.
    func waitForEvents(_ count: Int, timeout: Double = 30) async throws {
        guard await waitUntil(timeout, { self.daemon.status.storedEvents >= count }) else {
            throw TestDaemonError("fewer than \(count) events after \(timeout) s")
        }
    }

    /// Shuts the group down and waits for it.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running?.value
        running = nil
    }

    var database: FootstepDatabase { daemon.database! }

    /// The first stored event once its audio clip has been saved (clips are cut
    /// `recording.clip_after` seconds of audio after the onset).
    func firstEventWithClip(timeout: Double = 20) async throws -> EventRecord {
        let database = database
        var found: EventRecord?
        _ = await waitUntil(timeout) {
            found = try? database.events(EventFilter(limit: 1)).items.first.flatMap { $0.clipPath == nil ? nil : $0 }
            return found != nil
        }
        guard let found else { throw TestDaemonError("no event with a saved clip after \(timeout) s") }
        return found
    }

    func curl(
        _ method: String = "GET", _ path: String, body: String? = nil, asNobody: Bool = false, groups: [gid_t] = [],
        extra: [String] = []
    ) async throws -> Curl.Result {
        try await Curl.request(method, path, socket: socketPath, body: body, asNobody: asNobody, groups: groups, extra: extra)
    }
}

struct TestDaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
