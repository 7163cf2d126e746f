import FootstepClassifier
import FootstepCore
import Foundation
import Testing

/// The bout typer of a model file: the type its trees name, and the checks
/// that keep a malformed typer out.
@Suite struct BoutTypePredictorTests {
    static let count = BoutTypeModel.featureNames.count
    static let cadence = BoutTypeModel.featureNames.firstIndex(of: "bout_cadence_hz")!
    static let rise = BoutTypeModel.featureNames.firstIndex(of: "bout_level_over_q30_db")!

    /// A stump on `feature`: at or below `threshold` adds −1 to `output`, above it +5
    /// (`missingLeft`: where a NaN goes).
    static func stump(output: Int, feature: Int, threshold: Double, missingLeft: Bool = true) -> TreeEnsemble.Tree {
        TreeEnsemble.Tree(
            output: output, feature: [feature, -1, -1], threshold: [threshold, 0, 0], left: [1, 0, 0], right: [2, 0, 0],
            missingLeft: [missingLeft, false, false], value: [0, -1, 5])
    }

    /// Heel strike unless the bout's cadence is above 2.45 steps/s (running) or
    /// it stands more than 4 dB over the stream's 30th percentile (stomping).
    static let trees = BoutTypeModel(
        classes: BoutTypeModel.classNames, features: BoutTypeModel.featureNames,
        trees: TreeEnsemble(
            baseline: [0, 1, 0, 0],
            trees: [stump(output: 3, feature: cadence, threshold: 2.45), stump(output: 0, feature: rise, threshold: 4)]))

    static func type(_ model: BoutTypeModel, _ values: [Int: Double]) -> FootstepType {
        let row = (0..<count).map { values[$0] ?? 0 }
        return row.withUnsafeBufferPointer { BoutTypePredictor(model).type(for: $0) }
    }

    @Test func treesNameTheTypeWhoseLeavesScoreHighest() throws {
        try Self.trees.validate(path: "m.json")
        #expect(Self.type(Self.trees, [:]) == .heelStrike)
        #expect(Self.type(Self.trees, [Self.cadence: 3]) == .running)
        #expect(Self.type(Self.trees, [Self.cadence: 2.45]) == .heelStrike, "a value on the threshold goes left")
        #expect(Self.type(Self.trees, [Self.rise: 6]) == .stomping)
        #expect(Self.type(Self.trees, [Self.cadence: .nan]) == .heelStrike, "a missing cadence goes left")
    }

    @Test func aModelFileTyperDecodesAndOneWithoutTreesIsRefused() throws {
        let trees = try JSONDecoder().decode(BoutTypeModel.self, from: JSONEncoder().encode(Self.trees))
        #expect(trees == Self.trees)
        // A typer written before the trees (the logistic regression of session 53's files) has no `trees` key.
        var logistic = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.trees)) as! [String: Any]
        logistic["trees"] = nil
        logistic["weights"] = [[Double]](repeating: [Double](repeating: 0, count: Self.count), count: 4)
        logistic["biases"] = [0.0, 1, 0, 0]
        let decoded = try JSONDecoder().decode(BoutTypeModel.self, from: JSONSerialization.data(withJSONObject: logistic))
        #expect(decoded.trees == nil)
        #expect {
            try decoded.validate(path: "m.json")
        } throws: { error in
            guard case let .modelInvalid(_, reason) = error as? ClassifierError else { return false }
            return reason.contains("no trees") && reason.contains("--bout-typers-only")
        }
    }

    @Test func aMalformedTyperIsRefusedSayingWhatIsWrong() {
        func reason(_ model: BoutTypeModel) -> String {
            do {
                try model.validate(path: "m.json")
                return "accepted"
            } catch {
                return error.description
            }
        }
        var outOfRange = Self.trees
        outOfRange.trees!.trees[0].feature[0] = Self.count
        #expect(reason(outOfRange).contains("the bout typer's trees: tree 0 node 0 splits on feature \(Self.count)"))
        var fewClasses = Self.trees
        fewClasses.trees!.baseline = [0, 1, 0]
        #expect(reason(fewClasses).contains("the bout typer's trees: the trees' baseline must have 4 finite values"))
        var noTrees = Self.trees
        noTrees.trees = nil
        #expect(reason(noTrees).contains("has no trees"))
        #expect(reason(Self.trees) == "accepted")
    }
}
