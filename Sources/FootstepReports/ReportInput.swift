import FootstepCore
import Foundation

/// One event as the reports see it (a store row or an analysed recording's event).
public struct ReportEvent: Sendable, Equatable {
    /// Store id (nil for events of an analysed recording).
    public var id: Int64?
    /// The session it belongs to, if from the store.
    public var sessionId: Int64?
    /// Onset time.
    public var timestamp: Date
    /// Duration in seconds.
    public var duration: Double
    public var kind: EventKind
    /// The current type (the latest revision's, if the event was revised).
    public var type: FootstepType
    /// The label the event was stored with (its type for a footstep, `other`
    /// otherwise), when a later revision changed it (nil otherwise).
    public var revisedFrom: String?
    /// Confidence in the label (`type`, or `other`), 0…1; with a calibrated model, how often such a label was right.
    public var confidence: Double
    /// Loudness relative to the background, if known.
    public var intensity: Intensity?
    /// LAFmax of the event, dB(A) (calibrated or relative).
    public var laMax: Double
    /// LCFmax of the event, dB(C), if measured.
    public var lcMax: Double?
    /// Sound exposure level, dB(A), if known.
    public var sel: Double?
    /// User notes.
    public var notes: String
    /// The event's audio clip, if one was kept.
    public var clip: ReportClipFile?
    /// What a person who listened said of it (nil: nobody reviewed it).
    public var review: ReportReview?

    /// Creates an event.
    public init(
        id: Int64? = nil, sessionId: Int64? = nil, timestamp: Date, duration: Double = 0, kind: EventKind,
        type: FootstepType, confidence: Double, intensity: Intensity? = nil, laMax: Double, lcMax: Double? = nil,
        sel: Double? = nil, notes: String = "", clip: ReportClipFile? = nil, revisedFrom: String? = nil,
        review: ReportReview? = nil
    ) {
        self.id = id
        self.sessionId = sessionId
        self.timestamp = timestamp
        self.duration = duration
        self.kind = kind
        self.type = type
        self.confidence = confidence
        self.intensity = intensity
        self.laMax = laMax
        self.lcMax = lcMax
        self.sel = sel
        self.notes = notes
        self.clip = clip
        self.revisedFrom = revisedFrom
        self.review = review
    }

    /// Whether a review rejected it: left out of counts, rule checks, charts and the loudest list.
    public var isRejected: Bool { review?.verdict == .rejected }

    /// `other`, or the footstep's type, marked `*` if a revision changed it
    /// (``ReportDocument/revisionNote`` explains the mark).
    public var typeLabel: String {
        let label = kind.label(type)
        return revisedFrom == nil ? label : label + "*"
    }
}

/// An event's latest review: its verdict, who gave it and why.
public struct ReportReview: Sendable, Equatable {
    public var verdict: ReviewVerdict
    /// The reviewer's user name.
    public var reviewer: String
    /// Why (may be empty).
    public var reason: String

    public init(verdict: ReviewVerdict, reviewer: String, reason: String = "") {
        self.verdict = verdict
        self.reviewer = reviewer
        self.reason = reason
    }
}

/// An event's clip file as recorded in the store.
public struct ReportClipFile: Sendable, Equatable {
    /// Absolute path of the clip.
    public var path: String
    /// Lower-case hex SHA-256 recorded when the clip was written.
    public var sha256: String?

    public init(path: String, sha256: String?) {
        self.path = path
        self.sha256 = sha256
    }
}

/// Decoded audio of an event (its clip, mono), for the waveform and spectrogram
/// thumbnails and the playable clips of the loudest events.
public struct ReportAudio: Sendable, Equatable {
    /// Mono samples, full scale ±1.
    public var samples: [Float]
    public var sampleRate: Int
    /// Seconds from the first sample to the event's onset.
    public var onsetSeconds: Double
    /// The encoded clip file's bytes (FLAC or WAV), embedded in the HTML report; nil to not embed.
    public var encoded: Data?
    /// MIME type of `encoded` (`audio/flac`, `audio/wav`).
    public var mimeType: String

    public init(samples: [Float], sampleRate: Int, onsetSeconds: Double, encoded: Data? = nil, mimeType: String = "audio/flac") {
        self.samples = samples
        self.sampleRate = sampleRate
        self.onsetSeconds = onsetSeconds
        self.encoded = encoded
        self.mimeType = mimeType
    }
}

/// One level interval (normally a minute) as the reports see it.
public struct ReportLevelInterval: Sendable, Equatable {
    public var start: Date
    public var seconds: Double
    public var laeq: Double
    public var lceq: Double
    public var lafMax: Double
    public var la90: Double

    public init(start: Date, seconds: Double = 60, laeq: Double, lceq: Double, lafMax: Double, la90: Double) {
        self.start = start
        self.seconds = seconds
        self.laeq = laeq
        self.lceq = lceq
        self.lafMax = lafMax
        self.la90 = la90
    }
}

/// A gait bout (a walk or run across the room) as the reports see it.
public struct ReportBout: Sendable, Equatable {
    public var start: Date
    public var end: Date
    public var steps: Int
    /// Steps per second.
    public var cadence: Double
    public var dominantType: FootstepType
    /// `walking` or `running`.
    public var kind: String

    public init(start: Date, end: Date, steps: Int, cadence: Double, dominantType: FootstepType, kind: String) {
        self.start = start
        self.end = end
        self.steps = steps
        self.cadence = cadence
        self.dominantType = dominantType
        self.kind = kind
    }

    /// Length of the bout in seconds.
    public var seconds: Double { end.timeIntervalSince(start) }
}

/// The calibration the levels were measured with.
public struct ReportCalibration: Sendable, Equatable {
    /// Offset added to dBFS-derived levels to get dB SPL.
    public var offsetDB: Double
    public var measuredAt: Date
    /// How it was done ("94 dB calibrator").
    public var method: String
    /// The reference instrument.
    public var reference: String
    /// True when the offset is the configuration file's
    /// `levels.calibration_offset`, with no reference measurement.
    public var isFromConfiguration: Bool

    public init(
        offsetDB: Double, measuredAt: Date, method: String = "", reference: String = "", isFromConfiguration: Bool = false
    ) {
        self.offsetDB = offsetDB
        self.measuredAt = measuredAt
        self.method = method
        self.reference = reference
        self.isFromConfiguration = isFromConfiguration
    }
}

/// What a report covers and how to read the clock.
public struct ReportScope: Sendable {
    public var from: Date
    public var to: Date
    /// The local time zone of the flat (hours, nights and rules use it).
    public var timeZone: TimeZone
    /// Night-time quiet hours; a night is labelled by the date it starts on.
    public var quietHours: DailyWindow
    /// The calibration in force, or nil: levels are relative (dBFS-based).
    public var calibration: ReportCalibration?
    /// Only this session (nil: every session in the range).
    public var sessionId: Int64?

    public init(
        from: Date, to: Date, timeZone: TimeZone, quietHours: DailyWindow, calibration: ReportCalibration?,
        sessionId: Int64? = nil
    ) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.quietHours = quietHours
        self.calibration = calibration
        self.sessionId = sessionId
    }

    /// Whether levels are absolute (calibrated to dB SPL).
    public var calibrated: Bool { calibration != nil }

    /// "dB(A)" or "dB(A) rel." for level columns.
    public var levelUnit: String { calibrated ? "dB(A)" : "dB(A) rel." }

    /// The calibration status every level is labelled with:
    /// "calibrated (+12.3 dB, 2026-11-20)" or "uncalibrated, relative dBFS".
    public var calibrationLabel: String {
        guard let calibration else { return "uncalibrated, relative dBFS" }
        let date = LocalClock(timeZone: timeZone).dayKey(calibration.measuredAt)
        if calibration.isFromConfiguration {
            return String(format: "calibrated (%+.1f dB from the configuration file, %@)", calibration.offsetDB, date)
        }
        return String(format: "calibrated (%+.1f dB, %@)", calibration.offsetDB, date)
    }

    /// Whether `date` lies in `[from, to)`.
    public func contains(_ date: Date) -> Bool { date >= from && date < to }
}
