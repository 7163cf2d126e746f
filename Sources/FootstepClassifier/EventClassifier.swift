import FootstepCore
import FootstepDSP

/// What the classifier stage says about one impact.
public struct Classification: Sendable, Equatable, Codable {
    /// Footstep, or other impact noise (never counted as a footstep).
    public var kind: EventKind
    /// The footstep type; `unknown` when confidence is below 0.5 or the event is not a footstep.
    public var type: FootstepType
    /// Probability of the reported label, in [0, 1].
    public var confidence: Double
    /// Loudness relative to the background.
    public var intensity: Intensity
    /// Probability that the impact is a footstep of any type, in [0, 1]
    /// (what gait context weighs; `confidence` is that of the label alone).
    public var footstepProbability: Double
    /// How the classifier shares a footstep between the four types.
    public var typeProbabilities: TypeProbabilities
    /// What the impact sounds like, when the classifier measured it (gait
    /// context compares neighbours by it).
    public var timbre: EventTimbre?

    /// - Parameters:
    ///   - footstepProbability: defaults to `confidence` for a footstep and
    ///     `1 - confidence` for another impact.
    ///   - typeProbabilities: defaults to all on `type` when it is one of the
    ///     four, a quarter each otherwise.
    public init(
        kind: EventKind, type: FootstepType, confidence: Double, intensity: Intensity,
        footstepProbability: Double? = nil, typeProbabilities: TypeProbabilities? = nil, timbre: EventTimbre? = nil
    ) {
        self.kind = kind
        self.type = type
        self.confidence = confidence
        self.intensity = intensity
        self.footstepProbability = footstepProbability ?? (kind == .footstep ? confidence : 1 - confidence)
        self.typeProbabilities = typeProbabilities ?? Self.certain(type)
        self.timbre = timbre
    }

    private static func certain(_ type: FootstepType) -> TypeProbabilities {
        guard type != .unknown else { return .uniform }
        return TypeProbabilities(
            stomping: type == .stomping ? 1 : 0, heelStrike: type == .heelStrike ? 1 : 0,
            shuffling: type == .shuffling ? 1 : 0, running: type == .running ? 1 : 0)
    }
}

/// The stage after the onset detector: names each impact.
///
/// - Note: Called on the pipeline's thread, once per event; implementations
///   must not block and should not allocate in steady state.
public protocol EventClassifier: ~Copyable {
    /// Classifies `event` from its audio (`segment` starts `preRollFrames`
    /// before the onset, mono, at `sampleRate`).
    mutating func classify(
        _ event: ImpactEvent, segment: UnsafeBufferPointer<Float>, preRollFrames: Int, sampleRate: Double
    ) -> Classification

    /// Names footsteps' types again once their bout has ended (the model's
    /// bout typer, ready to predict); nil keeps the live types.
    var boutTyper: BoutTypePredictor? { get }

    /// The frame step network that revises the labels (`FrameEvidence`); nil keeps them.
    /// Its `decision` is nil: the classifier hands it over as `frameDecision`.
    var frameNetwork: FootstepModel.FrameNetwork? { get }

    /// The frame network's learned decision, its trees already flattened; nil
    /// without a network (a model file's network must have one).
    var frameDecision: FrameDecision? { get }

    /// Maps the pipeline's output confidences to what they are worth; nil
    /// reports them unchanged.
    var confidenceCalibration: ConfidenceCalibration? { get }
}

extension EventClassifier where Self: ~Copyable {
    public var boutTyper: BoutTypePredictor? { nil }
    public var frameNetwork: FootstepModel.FrameNetwork? { nil }
    public var frameDecision: FrameDecision? { nil }
    public var confidenceCalibration: ConfidenceCalibration? { nil }
}

/// The classifier used before a model is available: every event is an
/// `unknown` footstep with the detector's own confidence.
public struct DetectorOnlyClassifier: EventClassifier {
    public init() {}

    public mutating func classify(
        _ event: ImpactEvent, segment: UnsafeBufferPointer<Float>, preRollFrames: Int, sampleRate: Double
    ) -> Classification {
        Classification(
            kind: .footstep, type: .unknown, confidence: event.detectorConfidence,
            intensity: Intensity(levelAboveBackground: event.lafMax - event.backgroundLAF))
    }
}

extension Intensity {
    /// low below 10 dB above the background, medium below 20 dB, high from 20 dB.
    public init(levelAboveBackground difference: Double) {
        switch difference {
        case ..<10: self = .low
        case ..<20: self = .medium
        default: self = .high
        }
    }
}
