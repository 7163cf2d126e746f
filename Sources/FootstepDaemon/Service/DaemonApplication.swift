import Logging
import ServiceLifecycle

/// Assembles the daemon, so that `footstepd` and the tests run the very same thing.
public enum DaemonApplication {
    /// The daemon service and, when a configuration file is given, the SIGHUP
    /// reload service, in one group that shuts down on SIGTERM/SIGINT (the
    /// reload service first, the daemon last). The group ends when a finite
    /// source (file, scenario) has been read to its end.
    public static func build(
        configuration: DaemonConfiguration, source: SourceChoice, options: DaemonOptions = DaemonOptions(),
        logger: Logger, notifier: SystemdNotifier = SystemdNotifier(), handleSignals: Bool = true
    ) -> (group: ServiceGroup, daemon: FootstepDaemonService) {
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
        var groupConfiguration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(30)
        return (ServiceGroup(configuration: groupConfiguration), daemon)
    }
}
