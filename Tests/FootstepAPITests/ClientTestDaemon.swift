import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import ServiceLifecycle

/// A real footstepd (the same `DaemonApplication` as the executable) serving
/// its control socket in a temporary directory, for the client and CLI tests.
final class ClientTestDaemon: Sendable {
    let directory: TemporaryDirectory
    let socketPath: String
    let statePath: String
    let daemon: FootstepDaemonService
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    static let quietLogger = Logger(label: "footstepctl-test") { _ in SwiftLogNoOpLogHandler() }

    /// Starts the daemon on `source` and waits until its socket answers.
    init(source: SourceChoice = .demo(scenario: "walking:duration=120,seed=5"), speed: Double? = 4,
         configurationText: String? = nil) async throws {
        directory = try TemporaryDirectory(prefix: "fsctl")
        socketPath = directory.appending("ctl.sock")
        statePath = directory.appending("state")
        var options = DaemonOptions(stateDirectory: statePath, socketPath: socketPath, speed: speed)
        options.flushInterval = 0.2
        var configuration = DaemonConfiguration()
        if let configurationText {
            let path = directory.appending("footstepd.toml")
            try configurationText.write(toFile: path, atomically: true, encoding: .utf8)
            configuration = try DaemonConfiguration.load(path: path)
            options.configurationPath = path
        }
        let parts = DaemonApplication.assemble(
            configuration: configuration, source: source, options: options, logger: Self.quietLogger,
            handleSignals: false)
        (group, daemon) = (parts.group, parts.daemon)
        let group = group
        running = Task { try await group.run() }
        let daemon = daemon
        guard let control = parts.control,
            await APITestDaemon.waitUntil(15, { control.isListening && daemon.database != nil })
        else {
            await stop()
            throw DaemonError("the control socket \(socketPath) did not start listening")
        }
    }

    /// The daemon's own store.
    func database() throws -> FootstepDatabase {
        guard let database = daemon.database else { throw DaemonError("the daemon has not opened its store") }
        return database
    }

    /// Waits until the daemon has stored at least `count` events.
    func waitForEvents(_ count: Int, timeout: Double = 20) async -> Bool {
        await APITestDaemon.waitUntil(timeout) { self.daemon.status.storedEvents >= count }
    }

    /// Runs `body` with a fresh daemon, which is shut down afterwards whatever happens.
    static func with<T>(
        source: SourceChoice = .demo(scenario: "walking:duration=120,seed=5"), speed: Double? = 4,
        configurationText: String? = nil, _ body: (ClientTestDaemon) async throws -> T
    ) async throws -> T {
        let daemon = try await ClientTestDaemon(source: source, speed: speed, configurationText: configurationText)
        do {
            let result = try await body(daemon)
            await daemon.stop()
            return result
        } catch {
            await daemon.stop()
            throw error
        }
    }

    /// The first stored event once its audio clip has been saved (clips are cut
    /// `recording.clip_after` seconds of audio after the onset).
    func firstEventWithClip(timeout: Double = 20) async throws -> EventRecord {
        let database = try database()
        var found: EventRecord?
        _ = await APITestDaemon.waitUntil(timeout) {
            found = try? database.events(EventFilter(limit: 1)).items.first.flatMap { $0.clipPath == nil ? nil : $0 }
            return found != nil
        }
        guard let found else { throw DaemonError("no event with a saved clip after \(timeout) s") }
        return found
    }

    /// Shuts the daemon down and waits for it.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }
}
