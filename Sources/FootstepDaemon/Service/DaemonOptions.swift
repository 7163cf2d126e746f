import FootstepConfiguration
import Foundation

/// Run-time choices that are not part of the configuration file (command line, tests).
public struct DaemonOptions: Sendable {
    /// Overrides `state_directory`.
    public var stateDirectory: String?
    /// Overrides `socket.path`.
    public var socketPath: String?
    /// Paces files and scenarios at this multiple of real time; nil reads them as fast as possible.
    public var speed: Double?
    /// For file and demo sources: the wall-clock time of their first frame
    /// (a recording made earlier); nil starts the session's clock now.
    public var sourceStartedAt: Date?
    /// Ends capture after this many frames (tests: the ALSA file plugin never reports its end).
    public var maximumFrames: Int?
    /// Periods the ALSA hand-off ring holds (default 128, about 8 s). Tests reading an unpaced
    /// file-plugin PCM set it to hold the whole input so that nothing is dropped.
    public var captureRingPeriods: Int?
    /// Seconds between batched store writes (events are at most this late).
    public var flushInterval: Double = 1
    /// Seconds between `STATUS=` updates.
    public var statusInterval: Double = 10
    /// The configuration file, for reloads (nil: built-in defaults, nothing to reload).
    public var configurationPath: String?
    /// The clock the monitoring schedule follows (tests run a fast one; sessions
    /// and events always take the real wall clock).
    public var scheduleClock: @Sendable () -> Date = { Date() }
    /// Seconds between free-space checks of the state directory.
    public var diskCheckInterval: Double = 5
    /// Seconds between retention sweeps (one also runs at start and after each closed file).
    public var retentionInterval: Double = 600
    /// Seconds between retries of audio writing after a write error (disk full).
    public var audioRetryInterval: Double = 10
    /// Re-anchor the session clock to the wall clock at each file roll; nil: only
    /// for ALSA devices (files and the demo have no wall clock of their own).
    public var reanchorAtRoll: Bool?

    public init(
        stateDirectory: String? = nil, socketPath: String? = nil, speed: Double? = nil, maximumFrames: Int? = nil,
        configurationPath: String? = nil
    ) {
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.speed = speed
        self.maximumFrames = maximumFrames
        self.configurationPath = configurationPath
    }
}

extension DaemonConfiguration {
    /// The configuration with the command-line overrides applied.
    public func applying(_ options: DaemonOptions) -> DaemonConfiguration {
        var configuration = self
        if let directory = options.stateDirectory { configuration.stateDirectory = directory }
        if let path = options.socketPath { configuration.socket.path = path }
        return configuration
    }

    /// `<state>/footstepd.db`.
    public var databasePath: String { "\(stateDirectory)/footstepd.db" }
    /// `<state>/audio`.
    public var audioDirectory: String { "\(stateDirectory)/audio" }
    /// `<state>/clips`: one small file per event, kept by retention.
    public var clipDirectory: String { "\(stateDirectory)/clips" }
}
