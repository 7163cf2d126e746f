import FootstepClassifier
import FootstepCore
import FootstepDSP

/// One detected and classified impact, as the pipeline reports it.
public struct AnalyzedEvent: Sendable, Equatable, Codable {
    /// First frame of the impact, counted from the start of the stream.
    public var onsetFrame: Int64
    /// Seconds from the start of the stream to the onset (sample-accurate).
    public var onsetSeconds: Double
    public var durationSeconds: Double
    public var kind: EventKind
    public var type: FootstepType
    public var confidence: Double
    /// The classifier's probability that this is a footstep of any type.
    public var footstepProbability: Double
    /// How the classifier shared the impact between the four types, if a footstep.
    public var typeProbabilities: TypeProbabilities
    public var intensity: Intensity
    /// LAFmax of the event (calibrated dB(A)).
    public var laMax: Double
    /// LCFmax of the event (calibrated dB(C)).
    public var lcMax: Double
    /// Largest absolute sample, dBFS.
    public var peakDBFS: Double
    /// A-weighted sound exposure level (calibrated dB).
    public var sel: Double
    /// Fast A-weighted background just before the event.
    public var backgroundLA: Double
    /// Detection strength (detection function peak / threshold).
    public var strength: Double

    public init(_ event: ImpactEvent, classification: Classification, sampleRate: Double) {
        onsetFrame = event.onsetFrame
        onsetSeconds = Double(event.onsetFrame) / sampleRate
        durationSeconds = Double(event.durationFrames) / sampleRate
        kind = classification.kind
        type = classification.type
        confidence = classification.confidence
        footstepProbability = classification.footstepProbability
        typeProbabilities = classification.typeProbabilities
        intensity = classification.intensity
        laMax = event.lafMax
        lcMax = event.lcfMax
        peakDBFS = event.peakDBFS
        sel = event.sel
        backgroundLA = event.backgroundLAF
        strength = event.strength
    }

    /// `[detection] min_confidence`: a footstep whose confidence is below
    /// `minimum` keeps its kind but loses its type (`unknown`). The daemon
    /// applies it to live events and to those recovered after a kill.
    public mutating func requireConfidence(_ minimum: Double) {
        if kind == .footstep, confidence < minimum { type = .unknown }
    }

    /// The label of the analysis CSV: the type for a footstep, `other` otherwise.
    public var label: String { kind == .footstep ? type.rawValue : EventKind.other.rawValue }
}
