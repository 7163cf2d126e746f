import FootstepCore

/// The bout typer of a model file (`boutTyper`, written by
/// `tools/eval/bout_typer.py`): names a footstep's type from its whole bout
/// (`BoutReviser` computes the features, `BoutTypeModel.featureNames`).
///
/// It is either gradient-boosted trees over the features as they are
/// (`trees`, one tree a class per round, as `bout_typer.py` fits it) or, when
/// `trees` is absent, a multinomial logistic regression over the
/// standardised features (`means`, `scales`, `weights`, `biases`).
/// `BoutTypePredictor` applies either.
public struct BoutTypeModel: Sendable, Codable, Equatable {
    /// The features in order; `tools/eval/bout_typer.py` `FEATURES` is the same list.
    public static let featureNames = [
        "bout_cadence_hz", "local_cadence_hz", "bout_steps_log",
        "bout_level_over_q30_db", "bout_level_over_median_db", "level_over_q30_db", "level_over_bout_db",
        "bout_lc_minus_la_over_median_db", "lc_minus_la_over_median_db", "duration_log_s",
        "bout_p_stomping", "bout_p_heel_strike", "bout_p_shuffling", "bout_p_running",
        "p_stomping", "p_heel_strike", "p_shuffling", "p_running", "footstep_probability",
    ]
    /// The classes in order of `weights`, `biases` and the trees' outputs: `FootstepType.classified`.
    public static let classNames = FootstepType.classified.map(\.rawValue)

    public var classes: [String]
    public var features: [String]
    /// Each feature's mean: the logistic regression centres on it and puts it
    /// in place of a non-finite feature.
    public var means: [Double]
    public var scales: [Double]
    /// `weights[class][feature]`; empty when the typer is `trees`.
    public var weights: [[Double]]
    /// One a class; empty when the typer is `trees`.
    public var biases: [Double]
    /// The trees, over the features as `BoutReviser` computes them (a NaN
    /// goes where scikit-learn sends it); nil for the logistic regression.
    public var trees: TreeEnsemble?

    public init(
        classes: [String], features: [String], means: [Double], scales: [Double], weights: [[Double]], biases: [Double],
        trees: TreeEnsemble? = nil
    ) {
        self.classes = classes
        self.features = features
        self.means = means
        self.scales = scales
        self.weights = weights
        self.biases = biases
        self.trees = trees
    }

    /// Checks the feature list and the shapes; the message names what differs.
    public func validate(path: String) throws(ClassifierError) {
        guard features == Self.featureNames else {
            let difference = zip(features, Self.featureNames).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            let detail = difference.map { "bout feature \($0) is '\(features[$0])', expected '\(Self.featureNames[$0])'" }
                ?? "\(features.count) bout features, expected \(Self.featureNames.count)"
            throw .featureMismatch(
                path: path, reason: "\(detail). Refit the bout typer: tools/eval/train_folds.py --bout-typers-only")
        }
        guard classes == Self.classNames, means.count == features.count, scales.count == features.count,
            scales.allSatisfy({ $0 > 0 })
        else {
            throw .modelInvalid(path: path, reason: "the bout typer's classes or shapes are wrong")
        }
        if let trees {
            guard weights.isEmpty, biases.isEmpty else {
                throw .modelInvalid(path: path, reason: "the bout typer has weights or trees, not both")
            }
            if let problem = trees.validate(features: features.count, classes: classes.count) {
                throw .modelInvalid(path: path, reason: "the bout typer's trees: \(problem)")
            }
        } else {
            guard weights.count == classes.count, biases.count == classes.count,
                weights.allSatisfy({ $0.count == features.count })
            else {
                throw .modelInvalid(path: path, reason: "the bout typer's weights do not have one row a class of one value a feature")
            }
        }
    }
}

/// A validated `BoutTypeModel` ready to name types: its trees laid out for
/// prediction (`FlatTreeEnsemble`; the model file's nested form is not
/// kept), or its logistic regression.
public struct BoutTypePredictor: Sendable {
    private enum Scorer {
        case trees(FlatTreeEnsemble)
        case logistic(means: [Double], scales: [Double], weights: [[Double]], biases: [Double])
    }

    private let scorer: Scorer

    /// - Precondition: `model` has passed `BoutTypeModel.validate`.
    public init(_ model: BoutTypeModel) {
        if let trees = model.trees {
            scorer = .trees(FlatTreeEnsemble(trees))
        } else {
            scorer = .logistic(means: model.means, scales: model.scales, weights: model.weights, biases: model.biases)
        }
    }

    /// The type with the largest score for `features` (`BoutTypeModel.featureNames` order).
    /// Does not allocate.
    public func type(for features: UnsafeBufferPointer<Double>) -> FootstepType {
        let count = FootstepType.classified.count
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { scores in
            switch scorer {
            case let .trees(trees):
                trees.logits(features, into: scores)
            case let .logistic(means, scales, weights, biases):
                Self.logisticScores(features, means: means, scales: scales, weights: weights, biases: biases, into: scores)
            }
            var best = 0
            for k in 1..<count where scores[k] > scores[best] { best = k }
            return FootstepType.classified[best]
        }
    }

    private static func logisticScores(
        _ features: UnsafeBufferPointer<Double>, means: [Double], scales: [Double], weights: [[Double]], biases: [Double],
        into scores: UnsafeMutableBufferPointer<Double>
    ) {
        for k in 0..<weights.count {
            var score = biases[k]
            let row = weights[k]
            for i in 0..<features.count {
                let value = features[i].isFinite ? features[i] : means[i]
                score += row[i] * (value - means[i]) / scales[i]
            }
            scores[k] = score
        }
    }
}
