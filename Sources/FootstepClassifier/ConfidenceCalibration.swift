import FootstepCore

/// What the pipeline's confidence in a label is worth: for each label, a
/// monotone map from the confidence the pipeline gives (after the gait
/// context, the bout typer and the frame decision) to how often a label
/// given at that confidence was right on recordings of families the model
/// never heard (`FootstepModel.confidenceCalibration`, fitted by
/// `tools/eval/output_calibration.py` on the training clips, out of fold).
///
/// A type's map never moves its confidence across `typeThreshold`: a type the
/// pipeline names keeps its name, and one it calls `unknown` stays unknown.
/// A confidence at or above the threshold whose calibrated value falls below
/// it is reported at the threshold. `unknown` (no type) passes unchanged.
///
/// `calibrated` interpolates without allocating.
public struct ConfidenceCalibration: Sendable, Codable, Equatable {
    /// One label's map: piecewise linear through (`x[i]`, `y[i]`), constant
    /// beyond the ends.
    public struct Curve: Sendable, Codable, Equatable {
        /// Confidences the pipeline gives, increasing.
        public var x: [Double]
        /// How often a label at each of them was right, non-decreasing, in [0, 1].
        public var y: [Double]

        public init(x: [Double], y: [Double]) {
            self.x = x
            self.y = y
        }

        /// The map's value at `confidence`.
        func value(at confidence: Double) -> Double {
            guard confidence > x[0] else { return y[0] }
            guard confidence < x[x.count - 1] else { return y[y.count - 1] }
            // The first knot above `confidence`: x[low] <= confidence < x[high].
            var low = 0
            var high = x.count - 1
            while high - low > 1 {
                let middle = (low + high) / 2
                if x[middle] <= confidence { low = middle } else { high = middle }
            }
            let share = (confidence - x[low]) / (x[high] - x[low])
            return y[low] + share * (y[high] - y[low])
        }
    }

    /// One curve for each of `FootstepModel.classNames`, in that order (the
    /// four types, then `other`).
    public var curves: [Curve]

    /// The confidence below which a footstep has no type (the classifier's rule).
    public static let typeThreshold = 0.5

    public init(curves: [Curve]) {
        self.curves = curves
    }

    /// The calibrated confidence of a label of `kind` and `type` given at `confidence`.
    public func calibrated(_ confidence: Double, kind: EventKind, type: FootstepType) -> Double {
        guard kind == .footstep else { return curves[FootstepModel.classNames.count - 1].value(at: confidence) }
        guard let index = FootstepType.classified.firstIndex(of: type) else { return confidence }
        let value = curves[Self.classIndex[index]].value(at: confidence)
        return confidence >= Self.typeThreshold
            ? max(value, Self.typeThreshold) : min(value, Self.typeThreshold.nextDown)
    }

    /// `FootstepType.classified[i]`'s index in `FootstepModel.classNames`.
    private static let classIndex = FootstepType.classified.map { type in
        FootstepModel.classNames.firstIndex(of: type.rawValue)!
    }

    /// Checks one curve a class, each with increasing knots and non-decreasing values in [0, 1].
    func validate(path: String) throws(ClassifierError) {
        guard curves.count == FootstepModel.classNames.count else {
            throw .modelInvalid(
                path: path,
                reason: "the confidence calibration has \(curves.count) curves, expected one for each of \(FootstepModel.classNames.joined(separator: ", "))")
        }
        for (name, curve) in zip(FootstepModel.classNames, curves) {
            guard !curve.x.isEmpty, curve.x.count == curve.y.count else {
                throw .modelInvalid(path: path, reason: "the confidence calibration of \(name) needs as many values as knots, at least one")
            }
            guard zip(curve.x, curve.x.dropFirst()).allSatisfy({ $0 < $1 }),
                zip(curve.y, curve.y.dropFirst()).allSatisfy({ $0 <= $1 }),
                curve.y.allSatisfy({ (0...1).contains($0) }), curve.x.allSatisfy(\.isFinite)
            else {
                throw .modelInvalid(
                    path: path,
                    reason: "the confidence calibration of \(name) must rise: knots increasing, values non-decreasing in [0, 1]")
            }
        }
    }
}
