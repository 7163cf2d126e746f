import FootstepConfiguration
import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration file on SIGHUP: validates it and hands it to the
/// daemon, or logs why it is invalid and keeps the old one.
public struct ConfigurationReloadService: Service {
    let path: String
    let daemon: FootstepDaemonService
    let logger: Logger
    let notifier: SystemdNotifier

    public init(path: String, daemon: FootstepDaemonService, logger: Logger, notifier: SystemdNotifier = SystemdNotifier()) {
        self.path = path
        self.daemon = daemon
        self.logger = logger
        self.notifier = notifier
    }

    public func run() async throws {
        for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
            reload()
        }
    }

    /// Validates and applies the file; returns false (keeping the old configuration) when invalid.
    @discardableResult
    public func reload() -> Bool {
        notifier.reloading()
        defer { notifier.ready(status: daemon.status.line) }
        do {
            try daemon.reload(from: path)
            logger.notice("configuration reloaded from \(path)")
            return true
        } catch {
            logger.error("configuration not reloaded, keeping the old one: \(error)")
            return false
        }
    }
}
