import FootstepCore
import Foundation

/// `GET /v1/status`: what the daemon is doing, at a glance.
public struct StatusResponse: Codable, Sendable, Equatable {
    /// The open session.
    public struct Session: Codable, Sendable, Equatable {
        public var id: Int64
        public var title: String
        public var startedAt: Date
        /// Seconds since `startedAt`.
        public var durationSeconds: Double

        public init(id: Int64, title: String, startedAt: Date, durationSeconds: Double) {
            self.id = id
            self.title = title
            self.startedAt = startedAt
            self.durationSeconds = durationSeconds
        }

        enum CodingKeys: String, CodingKey {
            case id, title
            case startedAt = "started_at"
            case durationSeconds = "duration_seconds"
        }
    }

    /// The capture source and its format.
    public struct Device: Codable, Sendable, Equatable {
        /// ALSA device name, file path or `synthetic:<scenario>`.
        public var name: String
        public var sampleRate: Int?
        public var channels: Int?
        /// Sample format (`S16_LE` …) when known.
        public var format: String?

        public init(name: String, sampleRate: Int? = nil, channels: Int? = nil, format: String? = nil) {
            self.name = name
            self.sampleRate = sampleRate
            self.channels = channels
            self.format = format
        }

        enum CodingKeys: String, CodingKey {
            case name, channels, format
            case sampleRate = "sample_rate"
        }
    }

    /// The current sound level (the live meter's last reading).
    public struct Level: Codable, Sendable, Equatable {
        /// A-weighted equivalent level over the last reading, dB.
        public var laeqDB: Double
        /// A-weighted Fast level, dB.
        public var lafDB: Double
        public var band: LevelBand
        /// True when levels are calibrated dB SPL.
        public var calibrated: Bool
        public var time: Date

        public init(laeqDB: Double, lafDB: Double, band: LevelBand, calibrated: Bool, time: Date) {
            self.laeqDB = laeqDB
            self.lafDB = lafDB
            self.band = band
            self.calibrated = calibrated
            self.time = time
        }

        enum CodingKeys: String, CodingKey {
            case band, calibrated, time
            case laeqDB = "laeq_db"
            case lafDB = "laf_db"
        }
    }

    /// Capture health counters.
    public struct Capture: Codable, Sendable, Equatable {
        /// Frames captured in the current session.
        public var capturedFrames: Int64
        /// Periods dropped because the pipeline fell behind.
        public var overruns: Int
        /// Device xruns recovered.
        public var xruns: Int
        /// False while the device is lost.
        public var deviceUp: Bool
        /// Samples analysed and recorded as silence because they were not numbers or out of range.
        public var invalidSamples: Int

        public init(capturedFrames: Int64, overruns: Int, xruns: Int, deviceUp: Bool, invalidSamples: Int = 0) {
            self.capturedFrames = capturedFrames
            self.overruns = overruns
            self.xruns = xruns
            self.deviceUp = deviceUp
            self.invalidSamples = invalidSamples
        }

        enum CodingKeys: String, CodingKey {
            case overruns, xruns
            case capturedFrames = "captured_frames"
            case deviceUp = "device_up"
            case invalidSamples = "invalid_samples"
        }
    }

    /// Disk use of the evidence.
    public struct Storage: Codable, Sendable, Equatable {
        /// Free bytes on the state directory's file system, if known.
        public var diskFreeBytes: Int64?
        /// Bytes of recorded audio files, if known.
        public var audioBytes: Int64?
        /// False while audio writing is suspended (disk full, I/O error).
        public var audioWriting: Bool

        public init(diskFreeBytes: Int64?, audioBytes: Int64?, audioWriting: Bool) {
            self.diskFreeBytes = diskFreeBytes
            self.audioBytes = audioBytes
            self.audioWriting = audioWriting
        }

        enum CodingKeys: String, CodingKey {
            case diskFreeBytes = "disk_free_bytes"
            case audioBytes = "audio_bytes"
            case audioWriting = "audio_writing"
        }
    }

    /// The monitoring schedule.
    public struct Schedule: Codable, Sendable, Equatable {
        /// `always`, or the schedule's description.
        public var description: String
        /// True when the schedule wants monitoring now.
        public var active: Bool
        /// When `active` next changes, if known.
        public var nextChange: Date?

        public init(description: String, active: Bool, nextChange: Date? = nil) {
            self.description = description
            self.active = active
            self.nextChange = nextChange
        }

        enum CodingKeys: String, CodingKey {
            case description, active
            case nextChange = "next_change"
        }
    }

    /// Publishing to an MQTT broker (`[mqtt]`), while it is on.
    public struct MQTT: Codable, Sendable, Equatable {
        public var broker: String
        public var connected: Bool
        /// Why the broker cannot be reached, while it cannot.
        public var problem: String?
        /// Stored records waiting to be published.
        public var outboxDepth: Int
        /// When the oldest of them was stored.
        public var oldestQueuedAt: Date?
        /// Level minutes dropped to keep the outbox bounded, ever.
        public var dropped: Int
        /// Records published (and acknowledged) since footstepd started.
        public var published: Int

        public init(
            broker: String, connected: Bool, problem: String? = nil, outboxDepth: Int = 0, oldestQueuedAt: Date? = nil,
            dropped: Int = 0, published: Int = 0
        ) {
            self.broker = broker
            self.connected = connected
            self.problem = problem
            self.outboxDepth = outboxDepth
            self.oldestQueuedAt = oldestQueuedAt
            self.dropped = dropped
            self.published = published
        }

        enum CodingKeys: String, CodingKey {
            case broker, connected, problem, dropped, published
            case outboxDepth = "outbox_depth"
            case oldestQueuedAt = "oldest_queued_at"
        }
    }

    /// `starting`, `recording`, `paused`, `idle`, `device-lost`, `stopping`.
    public var state: String
    /// footstepd's version.
    public var version: String
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    public var session: Session?
    public var device: Device?
    public var level: Level?
    /// Footsteps since local midnight, by type (`stomping`, `heel_strike` …).
    public var eventsToday: [String: Int]
    /// The most recent stored event.
    public var lastEvent: EventResponse?
    public var capture: Capture
    public var storage: Storage
    public var schedule: Schedule?
    /// The last error, if any (device lost, disk full …).
    public var lastError: String?
    public var mqtt: MQTT?

    public init(
        state: String, version: String, uptimeSeconds: Double, session: Session? = nil, device: Device? = nil,
        level: Level? = nil, eventsToday: [String: Int] = [:], lastEvent: EventResponse? = nil, capture: Capture,
        storage: Storage, schedule: Schedule? = nil, lastError: String? = nil, mqtt: MQTT? = nil
    ) {
        self.state = state
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.session = session
        self.device = device
        self.level = level
        self.eventsToday = eventsToday
        self.lastEvent = lastEvent
        self.capture = capture
        self.storage = storage
        self.schedule = schedule
        self.lastError = lastError
        self.mqtt = mqtt
    }

    enum CodingKeys: String, CodingKey {
        case state, version, session, device, level, capture, storage, schedule, mqtt
        case uptimeSeconds = "uptime_seconds"
        case eventsToday = "events_today"
        case lastEvent = "last_event"
        case lastError = "last_error"
    }
}
