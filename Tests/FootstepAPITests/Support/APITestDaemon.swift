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
    ///   - speed: Pace of the demo (multiple of real time).
    ///   - configurationPath: A configuration file (for reload tests).
    ///   - configure: Changes to the built-in configuration.
    ///   - server: Changes to the control server's settings.
    init(
        scenario: String = "walking:duration=900,seed=7", speed: Double = 4, configurationPath: String? = nil,
        configure: (inout DaemonConfiguration) -> Void = { _ in },
        server: ((inout ControlServerConfiguration) -> Void)? = nil
    ) throws {
        directory = try TemporaryDirectory(prefix: "footstepd-api")
        socketPath = directory.appending("run/control.sock")
        stateDirectory = directory.appending("state")
        var configuration = DaemonConfiguration()
        configuration.socket.readGroup = "footstepd-test-none"
        configuration.socket.adminGroup = "footstepd-test-none"
        configure(&configuration)
        var options = DaemonOptions(
            stateDirectory: stateDirectory, socketPath: socketPath, speed: speed, configurationPath: configurationPath)
        options.flushInterval = 0.2
        let parts = DaemonApplication.assemble(
            configuration: configuration, source: .demo(scenario: scenario), options: options,
            logger: Self.quietLogger, handleSignals: false, serverConfiguration: server)
        group = parts.group
        daemon = parts.daemon
        control = parts.control!
    }

    /// Runs the group and waits until the socket listens and a session records.
    func start(waitForRecording: Bool = true) async throws {
        let group = group
        running = Task { try await group.run() }
        guard await Self.waitUntil(10, { self.control.isListening && self.daemon.database != nil }) else {
            throw TestDaemonError("the control socket did not come up")
        }
        if waitForRecording {
            guard await Self.waitUntil(10, { self.daemon.status.sessionId != nil }) else {
                throw TestDaemonError("no session started")
            }
        }
    }

    /// Waits until at least `count` events are stored.
    func waitForEvents(_ count: Int, timeout: Double = 30) async throws {
        guard await Self.waitUntil(timeout, { self.daemon.status.storedEvents >= count }) else {
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

    func curl(
        _ method: String = "GET", _ path: String, body: String? = nil, asNobody: Bool = false, extra: [String] = []
    ) async throws -> Curl.Result {
        try await Curl.request(method, path, socket: socketPath, body: body, asNobody: asNobody, extra: extra)
    }

    static func waitUntil(_ timeout: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return condition()
    }
}

struct TestDaemonError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
