import FootstepCore

/// The bout typer of a model file (`boutTyper`, written by
/// `tools/eval/bout_typer.py`): a multinomial logistic regression that names
/// a footstep's type from its whole bout (`BoutReviser` computes the
/// features, `BoutTypeModel.featureNames`).
public struct BoutTypeModel: Sendable, Codable, Equatable {
    /// The features in order; `tools/eval/bout_typer.py` `FEATURES` is the same list.
    public static let featureNames = [
        "bout_cadence_hz", "local_cadence_hz", "bout_steps_log",
        "bout_level_over_q30_db", "bout_level_over_median_db", "level_over_q30_db", "level_over_bout_db",
        "bout_lc_minus_la_over_median_db", "lc_minus_la_over_median_db", "duration_log_s",
        "bout_p_stomping", "bout_p_heel_strike", "bout_p_shuffling", "bout_p_running",
        "p_stomping", "p_heel_strike", "p_shuffling", "p_running", "footstep_probability",
    ]
    /// The classes in order of `weights` and `biases`: `FootstepType.classified`.
    public static let classNames = FootstepType.classified.map(\.rawValue)

    public var classes: [String]
    public var features: [String]
    public var means: [Double]
    public var scales: [Double]
    /// `weights[class][feature]`.
    public var weights: [[Double]]
    public var biases: [Double]

    public init(classes: [String], features: [String], means: [Double], scales: [Double], weights: [[Double]], biases: [Double]) {
        self.classes = classes
        self.features = features
        self.means = means
        self.scales = scales
        self.weights = weights
        self.biases = biases
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
        guard classes == Self.classNames, weights.count == classes.count, biases.count == classes.count,
            weights.allSatisfy({ $0.count == features.count }), means.count == features.count,
            scales.count == features.count, scales.allSatisfy({ $0 > 0 })
        else {
            throw .modelInvalid(path: path, reason: "the bout typer's classes or shapes are wrong")
        }
    }

    /// The type with the largest score for `features` (`featureNames` order).
    /// Does not allocate.
    public func type(for features: UnsafeBufferPointer<Double>) -> FootstepType {
        var best = 0
        var bestScore = -Double.infinity
        for k in 0..<weights.count {
            var score = biases[k]
            let row = weights[k]
            for i in 0..<features.count {
                let value = features[i].isFinite ? features[i] : means[i]
                score += row[i] * (value - means[i]) / scales[i]
            }
            if score > bestScore {
                bestScore = score
                best = k
            }
        }
        return FootstepType.classified[best]
    }
}
