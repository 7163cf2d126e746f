import FootstepAPI
import FootstepConfiguration
import Logging
import ServiceLifecycle

/// Assembles the daemon, so that `footstepd` and the tests run the very same thing.
public enum DaemonApplication {
    /// The daemon service, the SIGHUP reload service (when a configuration file
    /// is given) and the control socket server, in one group that shuts down on
    /// SIGTERM/SIGINT in reverse order (the control socket first, the daemon
    /// last). The group ends when a finite source (file, scenario) has been read
    /// to its end.
    ///
    /// The control server is built from the configuration with the options
    /// applied (`socket.path`, `socket.read_group`, `socket.admin_group`,
    /// `metrics.port`). If it cannot start (another daemon holds the socket, the
    /// directory is not writable) the error is logged and capture goes on: a
    /// daemon without its socket still records evidence.
    ///
    /// - Parameter controlSocket: Whether to serve the control socket (tests of
    ///   the capture path alone may leave it out).
    public static func build(
        configuration: DaemonConfiguration, source: SourceChoice, options: DaemonOptions = DaemonOptions(),
        logger: Logger, notifier: SystemdNotifier = SystemdNotifier(), handleSignals: Bool = true,
        controlSocket: Bool = true
    ) -> (group: ServiceGroup, daemon: FootstepDaemonService) {
        let parts = assemble(
            configuration: configuration, source: source, options: options, logger: logger, notifier: notifier,
            handleSignals: handleSignals, controlSocket: controlSocket)
        return (parts.group, parts.daemon)
    }

    /// Like ``build(configuration:source:options:logger:notifier:handleSignals:controlSocket:)``,
    /// also returning the control server (to wait until it listens).
    public static func assemble(
        configuration: DaemonConfiguration, source: SourceChoice, options: DaemonOptions = DaemonOptions(),
        logger: Logger, notifier: SystemdNotifier = SystemdNotifier(), handleSignals: Bool = true,
        controlSocket: Bool = true, serverConfiguration: ((inout ControlServerConfiguration) -> Void)? = nil
    ) -> (group: ServiceGroup, daemon: FootstepDaemonService, control: ControlServer?) {
        let daemon = FootstepDaemonService(
            configuration: configuration, source: source, options: options, logger: logger, notifier: notifier)
        var services = [
            ServiceGroupConfiguration.ServiceConfiguration(
                service: daemon, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        ]
        if let path = options.configurationPath {
            services.append(
                .init(service: ConfigurationReloadService(path: path, daemon: daemon, logger: logger, notifier: notifier)))
        }
        var control: ControlServer?
        if controlSocket {
            var settings = ControlServerConfiguration(configuration.applying(options))
            serverConfiguration?(&settings)
            let server = ControlServer(
                configuration: settings, backend: DaemonControlBackend(daemon: daemon, logger: logger),
                logger: logger, onStarted: { daemon.controlSocketStarted(listening: $0) })
            control = server
            daemon.expectControlSocket()
            services.append(.init(service: server, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(30)
        return (ServiceGroup(configuration: groupConfiguration), daemon, control)
    }
}
