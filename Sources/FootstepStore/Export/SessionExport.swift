import Foundation

/// One session as exchanged by `footstepctl export` and `footstepctl import`: the
/// original design's SessionExport (`session`, `events`, `exportedAt`, `appVersion`)
/// with everything needed to restore the rows exactly and to verify them.
///
/// Every row keeps its database id, every time is ISO-8601 UTC with milliseconds
/// (``ExportDate``), every event keeps its `hash` and `previousHash`, so
/// ``FootstepDatabase/importExports(_:source:)`` can recompute each event's hash
/// (``EventHasher``) and restore the rows byte for byte. An export of a whole session
/// has `range == nil`; an export of a time range holds the session row and only the
/// rows of the range (``range``).
///
/// Written with ``ExportJSONEncoder`` (declaration order, explicit nulls, one event per
/// line); read with Foundation's `JSONDecoder`.
public struct SessionExport: Codable, Sendable, Hashable {
    /// The value of ``format`` for this version of the layout.
    public static let formatTag = "footstepd.session-export.v1"

    /// ``formatTag``; import refuses other values.
    public var format: String
    /// The footstepd version that wrote the file.
    public var appVersion: String
    /// When the export was made (ISO-8601 UTC).
    public var exportedAt: String
    /// The time range exported, or nil for the whole session.
    public var range: ExportRange?
    /// The session row.
    public var session: Session
    /// Audio files of the session (in the range, or referenced by an exported event), id order.
    public var audioFiles: [AudioFile]
    /// Capture gaps, id order.
    public var gaps: [Gap]
    /// Gait bouts (in the range, or referenced by an exported event), id order.
    public var bouts: [Bout]
    /// Per-minute levels, id order.
    public var levels: [LevelMinute]
    /// Calibrations measured before the end of the session (all of them while it is open), id order.
    public var calibrations: [Calibration]
    /// The events, id order.
    public var events: [Event]
    /// The type revisions of the exported events, id order. Absent (empty) in
    /// exports written before revisions existed.
    public var revisions: [Revision] = []

    /// A half-open time range `[from, to)` (ISO-8601 UTC).
    public struct ExportRange: Codable, Sendable, Hashable {
        /// First instant included.
        public var from: String
        /// First instant excluded.
        public var to: String

        /// Creates a range.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// Table `session`.
    public struct Session: Codable, Sendable, Hashable {
        public var id: Int64
        public var startedAt: String
        public var endedAt: String?
        /// `recording`, `paused`, `completed` or `interrupted`.
        public var status: String
        public var title: String
        public var notes: String
        public var device: String
        public var sampleRate: Int64
        public var channels: Int64
        /// IANA time zone of the place at session start.
        public var timeZone: String
        /// Why it ended (absent while open, and in exports of stores before v10).
        public var endReason: String?
    }

    /// Table `sessionGap`.
    public struct Gap: Codable, Sendable, Hashable {
        public var id: Int64
        public var sessionId: Int64
        public var startedAt: String
        public var endedAt: String
        public var reason: String
    }

    /// Table `audioFile`. `path` is the path on the machine that recorded it.
    public struct AudioFile: Codable, Sendable, Hashable {
        public var id: Int64
        public var sessionId: Int64
        public var path: String
        public var startedAt: String
        public var startFrame: Int64
        public var frames: Int64
        public var sampleRate: Int64
        public var channels: Int64
        /// `flac` or `wav`.
        public var format: String
        /// SHA-256 of the closed file (nil while open).
        public var sha256: String?
        public var closedAt: String?
        public var bytes: Int64
        public var prunedAt: String?
    }

    /// Table `bout`.
    public struct Bout: Codable, Sendable, Hashable {
        public var id: Int64
        public var sessionId: Int64
        public var startedAt: String
        public var endedAt: String
        public var steps: Int64
        public var cadence: Double
        public var dominantType: String
        /// `walking` or `running`.
        public var kind: String
    }

    /// Table `levelMinute` (calibrated dB).
    public struct LevelMinute: Codable, Sendable, Hashable {
        public var id: Int64
        public var sessionId: Int64
        public var startedAt: String
        public var seconds: Double
        public var laeq: Double
        public var lceq: Double
        public var lafMax: Double
        public var lafMin: Double
        public var la10: Double
        public var la90: Double
    }

    /// Table `calibration`.
    public struct Calibration: Codable, Sendable, Hashable {
        public var id: Int64
        public var measuredAt: String
        public var offsetDB: Double
        public var method: String
        public var reference: String
    }

    /// Table `event`. The fields from `sessionId` to `backgroundLA` and `previousHash` are
    /// covered by `hash` (``EventHasher``); `notes`, `boutId` and the clip fields are not.
    public struct Event: Codable, Sendable, Hashable {
        public var id: Int64
        public var sessionId: Int64
        public var audioFileId: Int64?
        public var frameOffset: Int64
        public var timestamp: String
        public var duration: Double
        /// `footstep` or `other`.
        public var kind: String
        /// e.g. `heel_strike`.
        public var type: String
        public var confidence: Double
        /// `low`, `medium` or `high`.
        public var intensity: String
        public var laMax: Double
        public var lcMax: Double?
        public var peakDBFS: Double
        public var sel: Double
        public var backgroundLA: Double?
        public var notes: String
        public var boutId: Int64?
        /// Path of the event's clip on the machine that recorded it.
        public var clipPath: String?
        public var clipSha256: String?
        public var hash: String
        public var previousHash: String
        /// The latest revision's type, confidence and hash (nil if never revised;
        /// repeated from ``SessionExport/revisions``, outside the event's hash).
        public var revisedType: String?
        public var revisedConfidence: Double?
        public var revisionHash: String?
        /// The latest revision's kind (nil if never revised, or revised before
        /// kinds could change and so still the stored kind).
        public var revisedKind: String?
        /// The latest review's verdict, `confirmed` or `rejected` (nil if never reviewed; repeated from
        /// ``SessionExport/revisions``, outside the event's hash).
        public var reviewVerdict: String?
    }

    /// Table `typeRevision` (``TypeRevisionRecord``): every field is covered by `hash`
    /// (``RevisionHasher``), which follows the event's hash or the revision before.
    public struct Revision: Codable, Sendable, Hashable {
        public var id: Int64
        public var eventId: Int64
        public var revisedAt: String
        public var previousType: String
        public var type: String
        public var confidence: Double
        public var reason: String
        public var previousHash: String
        public var hash: String
        /// The kinds before and after (absent in exports made before kinds
        /// could change: `footstep`).
        public var previousKind: String?
        public var kind: String?
        /// A review's verdict, the reviewer's uid and user name (absent for the pipeline's revisions).
        public var verdict: String?
        public var reviewerUid: Int64?
        public var reviewer: String?
    }

    enum CodingKeys: String, CodingKey {
        case format, appVersion, exportedAt, range, session, audioFiles, gaps, bouts, levels, calibrations, events
        case revisions
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(String.self, forKey: .format)
        appVersion = try container.decode(String.self, forKey: .appVersion)
        exportedAt = try container.decode(String.self, forKey: .exportedAt)
        range = try container.decodeIfPresent(ExportRange.self, forKey: .range)
        session = try container.decode(Session.self, forKey: .session)
        audioFiles = try container.decode([AudioFile].self, forKey: .audioFiles)
        gaps = try container.decode([Gap].self, forKey: .gaps)
        bouts = try container.decode([Bout].self, forKey: .bouts)
        levels = try container.decode([LevelMinute].self, forKey: .levels)
        calibrations = try container.decode([Calibration].self, forKey: .calibrations)
        events = try container.decode([Event].self, forKey: .events)
        revisions = try container.decodeIfPresent([Revision].self, forKey: .revisions) ?? []
    }

    /// Creates an export from its rows.
    public init(
        format: String, appVersion: String, exportedAt: String, range: ExportRange?, session: Session,
        audioFiles: [AudioFile], gaps: [Gap], bouts: [Bout], levels: [LevelMinute], calibrations: [Calibration],
        events: [Event], revisions: [Revision] = []
    ) {
        self.format = format
        self.appVersion = appVersion
        self.exportedAt = exportedAt
        self.range = range
        self.session = session
        self.audioFiles = audioFiles
        self.gaps = gaps
        self.bouts = bouts
        self.levels = levels
        self.calibrations = calibrations
        self.events = events
        self.revisions = revisions
    }
}

/// Several sessions' exports for one time range (`footstepctl export --from --to`):
/// each element of ``sessions`` is a complete ``SessionExport`` with its `range` set,
/// so one can be cut out and imported on its own.
public struct RangeExport: Codable, Sendable, Hashable {
    /// The value of ``format`` for this version of the layout.
    public static let formatTag = "footstepd.range-export.v1"

    /// ``formatTag``.
    public var format: String
    /// The footstepd version that wrote the file.
    public var appVersion: String
    /// When the export was made (ISO-8601 UTC).
    public var exportedAt: String
    /// The range exported.
    public var range: SessionExport.ExportRange
    /// Sessions overlapping the range, oldest first.
    public var sessions: [SessionExport]
    /// Diary entries about the range (by the time they describe), oldest first.
    /// Absent in exports written before the diary existed.
    public var diary: [DiaryEntryExport]

    /// Creates a range export.
    public init(
        appVersion: String, exportedAt: String, range: SessionExport.ExportRange, sessions: [SessionExport],
        diary: [DiaryEntryExport] = []
    ) {
        self.format = Self.formatTag
        self.appVersion = appVersion
        self.exportedAt = exportedAt
        self.range = range
        self.sessions = sessions
        self.diary = diary
    }

    enum CodingKeys: String, CodingKey {
        case format, appVersion, exportedAt, range, sessions, diary
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(String.self, forKey: .format)
        appVersion = try container.decode(String.self, forKey: .appVersion)
        exportedAt = try container.decode(String.self, forKey: .exportedAt)
        range = try container.decode(SessionExport.ExportRange.self, forKey: .range)
        sessions = try container.decode([SessionExport].self, forKey: .sessions)
        diary = try container.decodeIfPresent([DiaryEntryExport].self, forKey: .diary) ?? []
    }
}
