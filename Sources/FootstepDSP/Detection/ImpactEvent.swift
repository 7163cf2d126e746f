/// An impact found by the onset detector, with the measurements every later
/// stage (classifier, store, reports) needs. Frames count from the start of
/// the stream at the stream's sample rate.
public struct ImpactEvent: Sendable, Equatable {
    /// The first frame of the impact.
    public var onsetFrame: Int64
    /// Frames from onset until the sound fell back to the background.
    public var durationFrames: Int
    /// Largest absolute sample in dBFS (0 dBFS = full scale).
    public var peakDBFS: Double
    /// Largest Fast A-weighted level during the event (calibrated dB).
    public var lafMax: Double
    /// Largest Fast C-weighted level during the event (calibrated dB).
    public var lcfMax: Double
    /// A-weighted sound exposure level of the event (calibrated dB).
    public var sel: Double
    /// The Fast A-weighted background level just before the event (calibrated dB).
    public var backgroundLAF: Double
    /// Peak of the detection function divided by its adaptive threshold (>= 1).
    public var strength: Double
    /// The detector's own confidence in [0.5, 1): 0.5 at the threshold, rising with strength.
    public var detectorConfidence: Double
    /// Frames since the previous detected onset (nil for the first event).
    public var framesSincePreviousOnset: Int64?

    public init(
        onsetFrame: Int64, durationFrames: Int, peakDBFS: Double, lafMax: Double, lcfMax: Double, sel: Double,
        backgroundLAF: Double, strength: Double, detectorConfidence: Double, framesSincePreviousOnset: Int64?
    ) {
        self.onsetFrame = onsetFrame
        self.durationFrames = durationFrames
        self.peakDBFS = peakDBFS
        self.lafMax = lafMax
        self.lcfMax = lcfMax
        self.sel = sel
        self.backgroundLAF = backgroundLAF
        self.strength = strength
        self.detectorConfidence = detectorConfidence
        self.framesSincePreviousOnset = framesSincePreviousOnset
    }
}
