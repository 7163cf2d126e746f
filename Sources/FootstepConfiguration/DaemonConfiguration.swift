import FootstepAnalysis
import FootstepAudio
import FootstepCore
import FootstepDSP

/// The daemon's whole configuration, read from `/etc/footstepd/footstepd.toml`
/// (see `config/footstepd.toml` for every key with its default and meaning).
public struct DaemonConfiguration: Sendable, Equatable {
    public struct Capture: Sendable, Equatable {
        public var device = "default"
        public var sampleRate = 16000
        public var channels = 1
        public var sampleFormat: CaptureSampleFormat = .s16LE
        public var periodFrames = 0
        /// The microphone (make, model, serial), printed on the reports' equipment page.
        public var microphone = ""
        /// Where it is (room, height, distance from walls), for the same page.
        public var placement = ""
    }

    public struct Recording: Sendable, Equatable {
        public var audioFormat: AudioFileContainer = .flac
        /// How audio files and clips store samples: 16-bit, 24-bit or float (WAV only).
        public var bitDepth: AudioSampleEncoding = .pcm16
        /// Seconds between file rolls (aligned to the wall clock).
        public var rollInterval: Double = 4 * 3600
        /// Seconds of audio kept before / after each event's onset in its clip.
        public var clipBefore: Double = 2
        public var clipAfter: Double = 3
        /// Seconds between flushes of the audio file (data lost on a power cut at most this).
        public var syncInterval: Double = 1
    }

    public struct Detection: Sendable, Equatable {
        /// The onset detector's sensitivity (`AnalysisConfiguration.detectorThreshold`).
        public var threshold = AnalysisConfiguration().detectorThreshold
        /// Shortest time between two detected impacts, seconds.
        public var minimumInterOnsetInterval = AnalysisConfiguration().minimumInterOnsetInterval
        /// Below this confidence a footstep's type is reported as `unknown`.
        public var minimumConfidence = AnalysisConfiguration().minimumConfidence
        /// Revise labels with the neighbouring impacts in view (`AnalysisConfiguration.gaitContext`).
        public var gaitContext = AnalysisConfiguration().gaitContext
        /// Count regular walks of alike impacts as footsteps (`AnalysisConfiguration.walks`).
        public var walks = AnalysisConfiguration().walks
        /// A classifier model file; nil uses the built-in model.
        public var modelPath: String?
    }

    public struct Levels: Sendable, Equatable {
        /// dBFS → dB SPL; 0 means uncalibrated (relative levels).
        public var calibrationOffset = 0.0
        /// Seconds per level row.
        public var interval = AnalysisConfiguration().levelIntervalSeconds
    }

    public struct Retention: Sendable, Equatable {
        /// Maximum disk use of full audio files, bytes (0 = no limit).
        public var maximumAudioBytes: Int64 = 20 * 1_000_000_000
        /// Maximum age of full audio files, days (0 = no limit).
        public var maximumAudioDays = 90
        /// Stop writing audio when free space falls below this, bytes.
        public var minimumFreeBytes: Int64 = 500 * 1_000_000
    }

    public struct Socket: Sendable, Equatable {
        public var path = "/run/footstepd/control.sock"
        /// Members may read status, events and levels.
        public var readGroup = "footstepd"
        /// Members may also start/stop, edit and delete.
        public var adminGroup = "footstepd-admin"
    }

    public struct Metrics: Sendable, Equatable {
        /// TCP port for Prometheus `/metrics`; 0 = off (the socket always serves it).
        public var port = 0
        public var address = "127.0.0.1"
    }

    public struct Reports: Sendable, Equatable {
        public var quietHours = DailyWindow(start: 23 * 60, end: 7 * 60)
        /// Printed on the title page (address of the flat, complainant).
        public var address = ""
        public var notes = ""
        public var directory: String?
        public var keep = 30
    }

    /// `[mqtt]`: publishing to a broker, Home Assistant discovery.
    public struct MQTT: Sendable, Equatable {
        public var enabled = false
        public var url = "mqtt://localhost:1883"
        /// Empty: `footstepd-<hostname>`.
        public var clientId = ""
        public var username = ""
        public var passwordFile: String?
        public var caFile: String?
        public var certificateFile: String?
        public var keyFile: String?
        /// Empty: `footstepd/<hostname>`.
        public var topicPrefix = ""
        public var qos = 1
        public var keepalive: Double = 60
        public var homeAssistant = false
        public var acceptCommands = false
        /// The outbox's bound while the broker is away; the oldest level rows are dropped beyond it.
        public var maximumOutboxRows = 200_000
    }

    public var capture = Capture()
    public var recording = Recording()
    public var detection = Detection()
    public var levels = Levels()
    public var equalizer: [[EQBand]] = []
    public var schedule = MonitoringSchedule.always
    public var retention = Retention()
    public var stateDirectory = "/var/lib/footstepd"
    public var socket = Socket()
    public var metrics = Metrics()
    public var reports = Reports()
    public var mqtt = MQTT()

    public init() {}

    /// The default configuration file.
    public static let defaultPath = "/etc/footstepd/footstepd.toml"
}
