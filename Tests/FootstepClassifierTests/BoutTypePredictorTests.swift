import FootstepClassifier
import FootstepCore
import Foundation
import Testing

/// The bout typer of a model file as trees or as a logistic regression: the
/// type each names, and the checks that keep a malformed typer out.
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
        means: [Double](repeating: 0, count: count), scales: [Double](repeating: 1, count: count), weights: [], biases: [],
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

    @Test func aLogisticTyperScoresTheStandardisedFeatures() throws {
        var weights = [[Double]](repeating: [Double](repeating: 0, count: Self.count), count: 4)
        weights[3][Self.cadence] = 10
        let model = BoutTypeModel(
            classes: BoutTypeModel.classNames, features: BoutTypeModel.featureNames,
            means: [Double](repeating: 1, count: Self.count), scales: [Double](repeating: 2, count: Self.count),
            weights: weights, biases: [-100, 0, -100, -12])
        try model.validate(path: "m.json")
        // Running's score is 10 · (cadence − 1) / 2 − 12.
        #expect(Self.type(model, [Self.cadence: 3.5]) == .running)
        #expect(Self.type(model, [Self.cadence: 3.3]) == .heelStrike)
        #expect(Self.type(model, [Self.cadence: .nan]) == .heelStrike, "a non-finite feature counts as its mean")
    }

    @Test func aModelFileTyperDecodesWithOrWithoutTrees() throws {
        let trees = try JSONDecoder().decode(BoutTypeModel.self, from: JSONEncoder().encode(Self.trees))
        #expect(trees == Self.trees)
        // A typer written before the trees (session 53's files) has no `trees` key.
        var logistic = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.trees)) as! [String: Any]
        logistic["trees"] = nil
        logistic["weights"] = [[Double]](repeating: [Double](repeating: 0, count: Self.count), count: 4)
        logistic["biases"] = [0.0, 1, 0, 0]
        let decoded = try JSONDecoder().decode(BoutTypeModel.self, from: JSONSerialization.data(withJSONObject: logistic))
        #expect(decoded.trees == nil)
        try decoded.validate(path: "m.json")
        #expect(Self.type(decoded, [Self.cadence: 3]) == .heelStrike)
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
        var both = Self.trees
        both.biases = [0, 0, 0, 0]
        #expect(reason(both).contains("weights or trees, not both"))
        var outOfRange = Self.trees
        outOfRange.trees!.trees[0].feature[0] = Self.count
        #expect(reason(outOfRange).contains("the bout typer's trees: tree 0 node 0 splits on feature \(Self.count)"))
        var fewClasses = Self.trees
        fewClasses.trees!.baseline = [0, 1, 0]
        #expect(reason(fewClasses).contains("the bout typer's trees: the trees' baseline must have 4 finite values"))
        var noWeights = Self.trees
        noWeights.trees = nil
        #expect(reason(noWeights).contains("one row a class of one value a feature"))
        #expect(reason(Self.trees) == "accepted")
    }
}
