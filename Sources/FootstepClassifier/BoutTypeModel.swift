import FootstepCore

/// The bout typer of a model file (`boutTyper`, written by
/// `tools/eval/bout_typer.py`): names a footstep's type from its whole bout
/// (`BoutReviser` computes the features, `BoutTypeModel.featureNames`), as
/// gradient-boosted trees over the features as they are (one tree a class per
/// round, as `bout_typer.py` fits them). `BoutTypePredictor` applies them.
public struct BoutTypeModel: Sendable, Codable, Equatable {
    /// The features in order; `tools/eval/bout_typer.py` `FEATURES` is the same list.
    public static let featureNames = [
        "bout_cadence_hz", "local_cadence_hz", "bout_steps_log",
        "bout_level_over_q30_db", "bout_level_over_median_db", "level_over_q30_db", "level_over_bout_db",
        "bout_lc_minus_la_over_median_db", "lc_minus_la_over_median_db", "duration_log_s",
        "bout_p_stomping", "bout_p_heel_strike", "bout_p_shuffling", "bout_p_running",
        "p_stomping", "p_heel_strike", "p_shuffling", "p_running", "footstep_probability",
    ]
    /// The classes in order of the trees' outputs: `FootstepType.classified`.
    public static let classNames = FootstepType.classified.map(\.rawValue)

    public var classes: [String]
    public var features: [String]
    /// The trees, over the features as `BoutReviser` computes them (a NaN
    /// goes where scikit-learn sends it). A model file must have them
    /// (`validate`); optional here only so that a file without them (the
    /// logistic regression the typer once was) gets a clear error.
    public var trees: TreeEnsemble?

    public init(classes: [String], features: [String], trees: TreeEnsemble) {
        self.classes = classes
        self.features = features
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
        guard classes == Self.classNames else {
            throw .modelInvalid(path: path, reason: "the bout typer's classes are wrong")
        }
        guard let trees else {
            throw .modelInvalid(
                path: path, reason: "the bout typer has no trees. Refit it: tools/eval/train_folds.py --bout-typers-only")
        }
        if let problem = trees.validate(features: features.count, classes: classes.count) {
            throw .modelInvalid(path: path, reason: "the bout typer's trees: \(problem)")
        }
    }
}

/// A validated `BoutTypeModel` ready to name types: its trees laid out for
/// prediction (`FlatTreeEnsemble`; the model file's nested form is not kept).
public struct BoutTypePredictor: Sendable {
    private let trees: FlatTreeEnsemble

    /// - Precondition: `model` has passed `BoutTypeModel.validate`.
    public init(_ model: BoutTypeModel) {
        trees = FlatTreeEnsemble(model.trees!)
    }

    /// The type with the largest score for `features` (`BoutTypeModel.featureNames` order).
    /// Does not allocate.
    public func type(for features: UnsafeBufferPointer<Double>) -> FootstepType {
        let count = FootstepType.classified.count
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { scores in
            trees.logits(features, into: scores)
            var best = 0
            for k in 1..<count where scores[k] > scores[best] { best = k }
            return FootstepType.classified[best]
        }
    }
}
