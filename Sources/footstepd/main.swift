import ArgumentParser
import FootstepCore
import FootstepConfiguration
import FootstepDaemon
import Foundation
import Logging

/// footstepd: records footsteps and other impact noise as evidence.
/// All logic lives in FootstepDaemon; this parses the command line.
@main
struct Footstepd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "footstepd",
        abstract: "Listen to a microphone, detect and classify footsteps, keep the audio and the evidence.",
        discussion: """
            Runs until SIGTERM or SIGINT (graceful: the session is ended as completed). SIGHUP reloads \
            the configuration file (an invalid file is reported and the old configuration kept). \
            Exit code 78 means the configuration is invalid.

            Without a microphone: --source demo:night:seed=7,duration=28800 --speed 1000 records the \
            built-in synthetic night at 1000x real time; add device_loss=START+LENGTH (seconds) to the \
            scenario to unplug its simulated microphone for a while (a device-loss gap), e.g. \
            demo:night:duration=3600,device_loss=1200+300.
            """,
        version: FootstepVersion.current)

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "FILE"))
    var config: String?

    @Flag(name: .long, help: "Validate the configuration, print the effective configuration and exit (0 valid, 78 invalid).")
    var checkConfig = false

    @Flag(name: .long, help: "Print the default configuration file, every setting with its default and meaning, and exit.")
    var printDefaultConfig = false

    @Option(name: .long, help: ArgumentHelp("alsa[:DEVICE], file:PATH or demo[:SCENARIO] (default: the configured ALSA device).", valueName: "SOURCE"))
    var source: String?

    @Option(name: .long, help: "Pace file and demo sources at N times real time (default: demo 1, file as fast as possible).")
    var speed: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "File and demo sources: the wall-clock time their first frame was recorded (local, or with a zone: 2026-11-23T22:00, 2026-11-23T22:00:00Z). Default: now.",
            valueName: "TIME"))
    var startedAt: String?

    @Option(name: .long, help: ArgumentHelp("Overrides paths.state_dir.", valueName: "DIR"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("Overrides socket.path.", valueName: "PATH"))
    var socket: String?

    func validate() throws {
        if let speed, !(speed > 0 && speed <= 10_000) { throw ValidationError("--speed must be more than 0 and at most 10000, got \(speed)") }
        if let stateDir, !stateDir.hasPrefix("/") { throw ValidationError("--state-dir must be an absolute path") }
        if let source { do { _ = try SourceChoice(parsing: source) } catch { throw ValidationError("\(error)") } }
        if let startedAt {
            guard Self.parseTime(startedAt) != nil else {
                throw ValidationError("--started-at must look like 2026-11-23T22:00 (local) or 2026-11-23T22:00:00Z, got '\(startedAt)'")
            }
            guard let source, (try? SourceChoice(parsing: source))?.isFinite == true else {
                throw ValidationError("--started-at is for file and demo sources (a microphone records now)")
            }
        }
    }

    /// An ISO 8601 time with a zone, or a local `yyyy-MM-ddTHH:mm[:ss]`.
    static func parseTime(_ text: String) -> Date? {
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    func run() async throws {
        if printDefaultConfig {
            print(DaemonConfiguration.documentedTOML, terminator: "")
            return
        }
        MallocTuning.apply()  // before the daemon's threads allocate (see MallocTuning)
        let path = config ?? DaemonConfiguration.defaultPath
        let configuration: DaemonConfiguration
        do {
            if config == nil && !FileManager.default.fileExists(atPath: path) {
                configuration = DaemonConfiguration()  // no file installed: built-in defaults
            } else {
                configuration = try DaemonConfiguration.load(path: path)
            }
        } catch {
            FileHandle.standardError.write(Data("footstepd: invalid configuration: \(error)\n".utf8))
            throw ExitCode(ConfigurationError.exitCode)
        }
        var options = DaemonOptions(stateDirectory: stateDir, socketPath: socket)
        if FileManager.default.fileExists(atPath: path) { options.configurationPath = path }
        let choice = try source.map { try SourceChoice(parsing: $0) } ?? .alsa(device: nil)
        if case .demo = choice { options.speed = speed ?? 1 } else { options.speed = speed }
        options.sourceStartedAt = startedAt.flatMap(Self.parseTime)
        do {
            try configuration.applying(options).checkEnvironment(file: path)
            if checkConfig {
                try configuration.checkMetricsAddress(file: path)
                try configuration.checkReportEnvironment(file: path)
                try configuration.checkModel(file: path)
            }
        } catch {
            FileHandle.standardError.write(Data("footstepd: invalid configuration: \(error)\n".utf8))
            throw ExitCode(ConfigurationError.exitCode)
        }
        if checkConfig {
            print(configuration.applying(options).renderedTOML, terminator: "")
            return
        }

        LoggingSystem.bootstrap { JournalLogHandler(label: $0) }
        let logger = Logger(label: "footstepd")
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: choice, options: options, logger: logger)
        do {
            try await group.run()
        } catch let error as DaemonError {
            logger.critical("footstepd failed: \(error)")
            throw ExitCode(error.exitCode)
        } catch {
            logger.critical("footstepd failed: \(error)")
            throw ExitCode.failure
        }
        // A stop that could not store everything says so in its status (the journal line said what is where).
        if daemon.recordsLeftAside > 0 { throw ExitCode(75) }
    }
}
