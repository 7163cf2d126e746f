import Foundation
import FootstepCore
import FootstepDSP

/// The trained classifier: features (`EventFeatureExtractor`) → model
/// (`FootstepModel`) → calibrated probabilities over the four footstep types
/// and `other`. When the model has a picture network, the event's picture
/// (`EventPicture`) and features move the footstep classes' logits towards
/// the network's log-odds of a footstep before the softmax.
///
/// Decision: the most likely class names the type and its probability is the
/// confidence. `other` gives kind `other`, type `unknown`. A footstep class
/// below 0.5 gives type `unknown`, kind footstep when P(any footstep) ≥
/// P(other). Intensity comes from LAFmax above the background.
///
/// All buffers are allocated in `init`; `classify` does not allocate. The
/// classifier keeps only what it predicts with (the trees flattened, not the
/// model file's nested form, its frame decision's too), so the model it was
/// made from can be released.
public struct FootstepModelClassifier: EventClassifier {
    public let boutTyper: BoutTypePredictor?
    /// The model's frame network without its decision (that is `frameDecision`).
    public let frameNetwork: FootstepModel.FrameNetwork?
    public let frameDecision: FrameDecision?
    public let confidenceCalibration: ConfidenceCalibration?
    private var extractor = EventFeatureExtractor()
    /// Standardisation of each feature: (value − mean) / scale.
    private let means: [Double]
    private let scales: [Double]
    private let temperature: Double
    /// The model's trees, flattened.
    private let trees: FlatTreeEnsemble
    /// The standardised features of the last event, and the trees' logits for it (one a class).
    private var standardised: [Double]
    private var logits: [Double]
    private var picture = EventPicture()
    private var network: PictureNetwork?
    private let networkWeight: Double
    /// Probabilities of the last event, in `FootstepModel.classNames` order.
    public private(set) var probabilities: [Double]

    private static let types: [FootstepType] = [.stomping, .heelStrike, .shuffling, .running]

    public init(model: FootstepModel) throws(ClassifierError) {
        try model.validate()
        boutTyper = model.boutTyper.map(BoutTypePredictor.init)
        frameDecision = model.frameNetwork?.decision.map(FrameDecision.init)
        confidenceCalibration = model.confidenceCalibration
        frameNetwork = model.frameNetwork.map { network in
            var rules = network
            rules.decision = nil
            return rules
        }
        means = model.means
        scales = model.scales
        temperature = model.temperature
        // `validate()` has checked the trees are there.
        trees = FlatTreeEnsemble(model.trees!)
        standardised = [Double](repeating: 0, count: model.features.count)
        logits = [Double](repeating: 0, count: FootstepModel.classNames.count)
        probabilities = [Double](repeating: 0, count: FootstepModel.classNames.count)
        network = model.network.map { PictureNetwork(model: $0, features: model.features.count) }
        networkWeight = model.network?.weight ?? 0
    }

    /// The classifier with the model shipped in the package.
    public init() throws(ClassifierError) {
        try self.init(model: FootstepModel.bundled())
    }

    public mutating func classify(
        _ event: ImpactEvent, segment: UnsafeBufferPointer<Float>, preRollFrames: Int, sampleRate: Double
    ) -> Classification {
        extractor.extract(event, segment: segment, preRollFrames: preRollFrames, sampleRate: sampleRate)
        if network != nil { picture.compute(segment: segment, sampleRate: sampleRate) }
        let intensity = Intensity(levelAboveBackground: event.lafMax - event.backgroundLAF)
        var classification = predict(features: extractor.values, picture: picture.values, intensity: intensity)
        classification.timbre = EventTimbre(features: extractor.values)
        return classification
    }

    /// Classifies a feature vector (`EventFeatures.names` order) and, for a
    /// model with a picture network, the event's picture (`EventPicture.values`) directly.
    public mutating func predict(features: [Double], picture: [Float]? = nil, intensity: Intensity) -> Classification {
        precondition(features.count == means.count)
        for i in 0..<features.count {
            let value = features[i].isFinite ? features[i] : 0
            standardised[i] = (value - means[i]) / scales[i]
        }
        trees.logits(standardised, into: &logits)
        if network != nil, let picture {
            fuse(picture: picture)
        }
        // Softmax with temperature.
        var largest = -Double.infinity
        for value in logits { largest = max(largest, value / temperature) }
        var total = 0.0
        for k in 0..<probabilities.count {
            let e = exp(logits[k] / temperature - largest)
            probabilities[k] = e
            total += e
        }
        var best = 0
        for k in 0..<probabilities.count {
            probabilities[k] /= total
            if probabilities[k] > probabilities[best] { best = k }
        }
        return Self.decide(probabilities, intensity: intensity)
    }

    /// Moves the four footstep logits by `networkWeight` × (the network's footstep log-odds − the model's).
    private mutating func fuse(picture: [Float]) {
        var largest = -Double.infinity
        for k in 0..<4 { largest = max(largest, logits[k]) }
        var footsteps = 0.0
        for k in 0..<4 { footsteps += exp(logits[k] - largest) }
        let modelOdds = largest + log(footsteps) - logits[4]
        let networkOdds = network!.logit(picture: picture, features: standardised)
        guard networkOdds.isFinite else { return }
        let shift = networkWeight * (networkOdds - modelOdds)
        for k in 0..<4 { logits[k] += shift }
    }

    /// The decision rule on calibrated probabilities (stomping, heel_strike, shuffling, running, other).
    public static func decide(_ p: [Double], intensity: Intensity) -> Classification {
        var best = 0
        for k in 1..<p.count where p[k] > p[best] { best = k }
        let confidence = min(1, max(0, p[best]))
        let footstep = min(1, max(0, p[0] + p[1] + p[2] + p[3]))
        let shares = TypeProbabilities(modelProbabilities: p)
        if best == 4 {
            return Classification(
                kind: .other, type: .unknown, confidence: confidence, intensity: intensity, footstepProbability: footstep,
                typeProbabilities: shares)
        }
        if confidence < 0.5 {
            return Classification(
                kind: footstep >= p[4] ? .footstep : .other, type: .unknown, confidence: confidence,
                intensity: intensity, footstepProbability: footstep, typeProbabilities: shares)
        }
        return Classification(
            kind: .footstep, type: types[best], confidence: confidence, intensity: intensity,
            footstepProbability: footstep, typeProbabilities: shares)
    }
}
