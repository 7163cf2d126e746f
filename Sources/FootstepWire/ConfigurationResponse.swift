import Foundation

/// `GET /v1/config`: the configuration in force (file values with command-line
/// overrides applied), with the same section and key names as the TOML file.
/// The configuration has no secrets today; anything secret added later must be left out here.
public struct ConfigurationResponse: Codable, Sendable, Equatable {
    public struct Capture: Codable, Sendable, Equatable {
        public var device: String
        public var sampleRate: Int
        public var channels: Int
        public var format: String
        public var periodFrames: Int

        public init(device: String, sampleRate: Int, channels: Int, format: String, periodFrames: Int) {
            self.device = device
            self.sampleRate = sampleRate
            self.channels = channels
            self.format = format
            self.periodFrames = periodFrames
        }

        enum CodingKeys: String, CodingKey {
            case device, channels, format
            case sampleRate = "sample_rate"
            case periodFrames = "period_frames"
        }
    }

    public struct Recording: Codable, Sendable, Equatable {
        /// `flac` or `wav`.
        public var audioFormat: String
        /// `16`, `24` or `float`.
        public var bitDepth: String
        /// Seconds.
        public var rollInterval: Double
        public var clipBefore: Double
        public var clipAfter: Double
        public var syncInterval: Double

        public init(
            audioFormat: String, bitDepth: String, rollInterval: Double, clipBefore: Double, clipAfter: Double,
            syncInterval: Double
        ) {
            self.audioFormat = audioFormat
            self.bitDepth = bitDepth
            self.rollInterval = rollInterval
            self.clipBefore = clipBefore
            self.clipAfter = clipAfter
            self.syncInterval = syncInterval
        }

        enum CodingKeys: String, CodingKey {
            case audioFormat = "audio_format"
            case bitDepth = "bit_depth"
            case rollInterval = "roll_interval"
            case clipBefore = "clip_before"
            case clipAfter = "clip_after"
            case syncInterval = "sync_interval"
        }
    }

    public struct Detection: Codable, Sendable, Equatable {
        public var threshold: Double
        public var minInterval: Double
        public var minConfidence: Double
        public var model: String?

        public init(threshold: Double, minInterval: Double, minConfidence: Double, model: String?) {
            self.threshold = threshold
            self.minInterval = minInterval
            self.minConfidence = minConfidence
            self.model = model
        }

        enum CodingKeys: String, CodingKey {
            case threshold, model
            case minInterval = "min_interval"
            case minConfidence = "min_confidence"
        }
    }

    public struct Levels: Codable, Sendable, Equatable {
        public var calibrationOffset: Double
        public var interval: Double

        public init(calibrationOffset: Double, interval: Double) {
            self.calibrationOffset = calibrationOffset
            self.interval = interval
        }

        enum CodingKeys: String, CodingKey {
            case interval
            case calibrationOffset = "calibration_offset"
        }
    }

    public struct Retention: Codable, Sendable, Equatable {
        public var maxAudioBytes: Int64
        public var maxAudioDays: Int
        public var minFreeBytes: Int64

        public init(maxAudioBytes: Int64, maxAudioDays: Int, minFreeBytes: Int64) {
            self.maxAudioBytes = maxAudioBytes
            self.maxAudioDays = maxAudioDays
            self.minFreeBytes = minFreeBytes
        }

        enum CodingKeys: String, CodingKey {
            case maxAudioBytes = "max_audio_bytes"
            case maxAudioDays = "max_audio_days"
            case minFreeBytes = "min_free_bytes"
        }
    }

    public struct Socket: Codable, Sendable, Equatable {
        public var path: String
        public var readGroup: String
        public var adminGroup: String

        public init(path: String, readGroup: String, adminGroup: String) {
            self.path = path
            self.readGroup = readGroup
            self.adminGroup = adminGroup
        }

        enum CodingKeys: String, CodingKey {
            case path
            case readGroup = "read_group"
            case adminGroup = "admin_group"
        }
    }

    public struct Metrics: Codable, Sendable, Equatable {
        /// 0 = no TCP listener.
        public var port: Int
        public var address: String

        public init(port: Int, address: String) {
            self.port = port
            self.address = address
        }
    }

    /// The file it was read from; nil for built-in defaults.
    public var path: String?
    public var capture: Capture
    public var recording: Recording
    public var detection: Detection
    public var levels: Levels
    /// Number of equalizer bands (all channels).
    public var equalizerBands: Int
    /// `always` or the monitoring windows (`mon,tue 22:00-08:00; …`).
    public var schedule: String
    public var retention: Retention
    public var stateDirectory: String
    public var socket: Socket
    public var metrics: Metrics
    /// Quiet hours used by reports, `HH:MM-HH:MM`.
    public var quietHours: String
    /// The whole effective configuration as TOML (what `footstepd --check-config` prints).
    public var toml: String

    public init(
        path: String?, capture: Capture, recording: Recording, detection: Detection, levels: Levels,
        equalizerBands: Int, schedule: String, retention: Retention, stateDirectory: String, socket: Socket,
        metrics: Metrics, quietHours: String, toml: String
    ) {
        self.path = path
        self.capture = capture
        self.recording = recording
        self.detection = detection
        self.levels = levels
        self.equalizerBands = equalizerBands
        self.schedule = schedule
        self.retention = retention
        self.stateDirectory = stateDirectory
        self.socket = socket
        self.metrics = metrics
        self.quietHours = quietHours
        self.toml = toml
    }

    enum CodingKeys: String, CodingKey {
        case path, capture, recording, detection, levels, schedule, retention, socket, metrics, toml
        case equalizerBands = "equalizer_bands"
        case stateDirectory = "state_dir"
        case quietHours = "quiet_hours"
    }
}
