import FootstepClassifier
import FootstepCore
import FootstepDSP

/// One detected and classified impact, as the pipeline reports it: where it
/// is in the stream, its ``EventMeasurements`` (read as `event.laMax`,
/// `event.type`, …) and what the classifier made of it.
@dynamicMemberLookup
public struct AnalyzedEvent: Sendable, Equatable, Codable {
    /// First frame of the impact, counted from the start of the stream.
    public var onsetFrame: Int64
    /// Seconds from the start of the stream to the onset (sample-accurate).
    public var onsetSeconds: Double
    /// The label and the levels, as the store and the API carry them. `lcMax`
    /// and `backgroundLA` are always set here (not finite in digital silence).
    public var measurements: EventMeasurements
    /// The classifier's probability that this is a footstep of any type.
    public var footstepProbability: Double
    /// How the classifier shared the impact between the four types, if a footstep.
    public var typeProbabilities: TypeProbabilities
    /// Detection strength (detection function peak / threshold).
    public var strength: Double
    /// What the impact sounds like, when the classifier measured it.
    public var timbre: EventTimbre?

    public init(_ event: ImpactEvent, classification: Classification, sampleRate: Double) {
        onsetFrame = event.onsetFrame
        onsetSeconds = Double(event.onsetFrame) / sampleRate
        measurements = EventMeasurements(
            duration: Double(event.durationFrames) / sampleRate, kind: classification.kind, type: classification.type,
            confidence: classification.confidence, intensity: classification.intensity, laMax: event.lafMax,
            lcMax: event.lcfMax, peakDBFS: event.peakDBFS, sel: event.sel, backgroundLA: event.backgroundLAF)
        footstepProbability = classification.footstepProbability
        typeProbabilities = classification.typeProbabilities
        strength = event.strength
        timbre = classification.timbre
    }

    /// A measured field (`event.laMax`, `event.type`, …).
    public subscript<Value>(dynamicMember field: WritableKeyPath<EventMeasurements, Value>) -> Value {
        get { measurements[keyPath: field] }
        set { measurements[keyPath: field] = newValue }
    }

    /// LCFmax, −∞ when it was not measured.
    public var lcMaxLevel: Double { measurements.lcMax ?? -.infinity }

    /// `[detection] min_confidence`: a footstep whose confidence is below
    /// `minimum` keeps its kind but loses its type (`unknown`). The daemon
    /// applies it to live events and to those recovered after a kill.
    public mutating func requireConfidence(_ minimum: Double) {
        if measurements.kind == .footstep, measurements.confidence < minimum { measurements.type = .unknown }
    }

    /// The label of the analysis CSV: the type for a footstep, `other` otherwise.
    public var label: String { measurements.kind.label(measurements.type) }
}
