/// What was measured and decided about one impact: the fields an event carries
/// unchanged from the pipeline (`AnalyzedEvent`) through the store (`NewEvent`,
/// `EventRecord`, covered by the event's hash) to the API (`EventResponse`).
/// Each of those types holds one of these and reads its fields through
/// dynamic member lookup (`event.laMax`), so every field is declared here once.
///
/// Levels are calibrated dB (dBFS plus the calibration offset; relative dB when
/// uncalibrated). Its coding keys are the store's column names.
public struct EventMeasurements: Sendable, Hashable, Codable {
    /// Seconds from the onset until the sound fell back to the background.
    public var duration: Double
    /// Footstep or other impact noise.
    public var kind: EventKind
    /// Footstep type (`unknown` below the confidence threshold and for `other`).
    public var type: FootstepType
    /// Confidence of the label, 0…1.
    public var confidence: Double
    /// Loudness relative to the background.
    public var intensity: Intensity
    /// Maximum A-weighted Fast level, dB(A).
    public var laMax: Double
    /// Maximum C-weighted Fast level, dB(C); nil when not measured (or not finite).
    public var lcMax: Double?
    /// Largest absolute sample, dBFS.
    public var peakDBFS: Double
    /// A-weighted sound exposure level of the event, dB(A).
    public var sel: Double
    /// The background just before the event, dB(A): the detector's
    /// floor-tracking Fast A level (it follows drops at once and rises over
    /// seconds, so an event does not raise it); nil when unknown.
    public var backgroundLA: Double?

    public init(
        duration: Double, kind: EventKind, type: FootstepType, confidence: Double, intensity: Intensity, laMax: Double,
        lcMax: Double? = nil, peakDBFS: Double, sel: Double, backgroundLA: Double? = nil
    ) {
        self.duration = duration
        self.kind = kind
        self.type = type
        self.confidence = confidence
        self.intensity = intensity
        self.laMax = laMax
        self.lcMax = lcMax
        self.peakDBFS = peakDBFS
        self.sel = sel
        self.backgroundLA = backgroundLA
    }

    /// The same measurements as the store accepts them: a non-finite level
    /// becomes -200 dB (or nil where it is optional), the duration is at least
    /// 0 and the confidence within 0…1.
    public var storable: EventMeasurements {
        var copy = self
        copy.duration = max(0, duration.isFinite ? duration : 0)
        copy.confidence = min(1, max(0, confidence.isFinite ? confidence : 0))
        copy.laMax = laMax.storableLevel
        copy.lcMax = lcMax.flatMap { $0.isFinite ? $0 : nil }
        copy.peakDBFS = peakDBFS.storableLevel
        copy.sel = sel.storableLevel
        copy.backgroundLA = backgroundLA.flatMap { $0.isFinite ? $0 : nil }
        return copy
    }
}

extension Double {
    /// A level as the store keeps it: a level that is not finite (digital
    /// silence) becomes -200 dB, far below anything audible.
    public var storableLevel: Double { isFinite ? self : -200 }
}
