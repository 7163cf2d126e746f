@testable import FootstepClassifier
import FootstepCore
import Foundation
import Testing

/// The model file's tree ensemble: the walk, the softmax over its logits and
/// the checks that keep a malformed file out.
@Suite struct TreeEnsembleTests {
    /// One stump on feature 0 (standardised): at or below 0 adds 2 to `other`,
    /// above it 2 to `heel_strike`; a missing value goes right.
    static func stump() -> TreeEnsemble.Tree {
        TreeEnsemble.Tree(
            output: 4, feature: [0, -1, -1], threshold: [0, 0, 0], left: [1, 0, 0], right: [2, 0, 0],
            missingLeft: [false, false, false], value: [0, 2, -1])
    }

    static func model(_ trees: [TreeEnsemble.Tree], baseline: [Double] = [0, 0, 0, 0, 0]) throws -> FootstepModel {
        var model = try FootstepModel.bundled()
        model.trees = TreeEnsemble(baseline: baseline, trees: trees)
        model.temperature = 1
        return model
    }

    @Test func theWalkAddsEachTreesLeafToItsClass() throws {
        var heel = Self.stump()
        heel.output = 1
        heel.value = [0, -1, 2]
        let model = try Self.model([Self.stump(), heel], baseline: [0, 0.5, 0, 0, 0])
        var classifier = try FootstepModelClassifier(model: model)
        var features = model.means
        // Standardised feature 0 = -1: other gets 2, heel_strike 0.5 - 1.
        features[0] = model.means[0] - model.scales[0]
        var result = classifier.predict(features: features, intensity: .medium)
        var logits = [0.0, -0.5, 0, 0, 2]
        var total = logits.map(exp).reduce(0, +)
        for k in 0..<5 { #expect(abs(classifier.probabilities[k] - exp(logits[k]) / total) < 1e-12) }
        #expect(result.kind == .other)
        // Standardised feature 0 = +1: heel_strike gets 0.5 + 2, other -1.
        features[0] = model.means[0] + model.scales[0]
        result = classifier.predict(features: features, intensity: .medium)
        logits = [0.0, 2.5, 0, 0, -1]
        total = logits.map(exp).reduce(0, +)
        for k in 0..<5 { #expect(abs(classifier.probabilities[k] - exp(logits[k]) / total) < 1e-12) }
        #expect(result.kind == .footstep && result.type == .heelStrike)
        #expect(abs(result.confidence - exp(2.5) / total) < 1e-12)
    }

    /// The walk as the model file states it, node by node, for comparison with the flat layout.
    static func reference(_ ensemble: TreeEnsemble, _ inputs: [Double]) -> [Double] {
        var logits = ensemble.baseline
        for tree in ensemble.trees {
            var node = 0
            while tree.feature[node] >= 0 {
                let x = inputs[tree.feature[node]]
                node = (x.isNaN ? tree.missingLeft[node] : x <= tree.threshold[node]) ? tree.left[node] : tree.right[node]
            }
            logits[tree.output] += tree.value[node]
        }
        return logits
    }

    @Test func theFlatLayoutWalksTheShippedTreesAsTheFileStatesThem() throws {
        let ensemble = try #require(try FootstepModel.bundled().trees)
        let flat = FlatTreeEnsemble(ensemble)
        let features = try FootstepModel.bundled().features.count
        var generator = SeededRandom(seed: 15)  // seeded: a failure repeats
        var logits = [Double](repeating: 0, count: ensemble.baseline.count)
        for round in 0..<300 {
            // Standardised features, some exactly at a threshold, some missing.
            var inputs = (0..<features).map { _ in Double.random(in: -3...3, using: &generator) }
            if round % 3 == 0, let tree = ensemble.trees.randomElement(using: &generator), tree.feature[0] >= 0 {
                inputs[tree.feature[0]] = tree.threshold[0]
            }
            if round % 5 == 0 { inputs[Int.random(in: 0..<features, using: &generator)] = .nan }
            flat.logits(inputs, into: &logits)
            let expected = Self.reference(ensemble, inputs)
            for k in 0..<logits.count {
                #expect(abs(logits[k] - expected[k]) < 1e-9, "class \(k): \(logits[k]) against \(expected[k])")
            }
        }
        // A missing value goes where each split says: the stump sends it right (2 → other −1).
        let stumps = TreeEnsemble(baseline: [0, 0, 0, 0, 0], trees: [Self.stump()])
        FlatTreeEnsemble(stumps).logits([.nan] + [Double](repeating: 0, count: features - 1), into: &logits)
        #expect(logits == [0, 0, 0, 0, -1])
    }

    @Test func theShippedModelIsAnEnsembleThatSeparatesItsClasses() throws {
        let model = try FootstepModel.bundled()
        let trees = try #require(model.trees)
        #expect(Set(trees.trees.map(\.output)) == Set(0..<5), "every class has trees")
    }

    @Test func malformedEnsemblesAreClearErrors() throws {
        var backwards = Self.stump()
        backwards.left[0] = 0  // a child that is its own parent would never end
        var outOfRange = Self.stump()
        outOfRange.feature[0] = EventFeatures.count
        var short = Self.stump()
        short.value.removeLast()
        var noClass = Self.stump()
        noClass.output = 5
        var nanLeaf = Self.stump()
        nanLeaf.value[2] = .nan
        for (tree, expected) in [
            (backwards, "child"), (outOfRange, "splits on feature"), (short, "lengths"), (noClass, "class 5"), (nanLeaf, "non-finite"),
        ] {
            let model = try Self.model([tree])
            do {
                _ = try FootstepModelClassifier(model: model)
                Issue.record("a tree with a bad \(expected) loaded")
            } catch {
                guard case let .modelInvalid(_, reason) = error else { Issue.record("\(error)"); continue }
                #expect(reason.contains(expected), "\(reason)")
            }
        }
        #expect(throws: ClassifierError.self) { try FootstepModelClassifier(model: Self.model([Self.stump()], baseline: [0, 0])) }
        #expect(throws: ClassifierError.self) { try FootstepModelClassifier(model: Self.model([])) }
        // A model without trees (a dense network, as models once were) is refused, saying how to retrain.
        var network = try Self.model([Self.stump()])
        network.trees = nil
        #expect {
            try FootstepModelClassifier(model: network)
        } throws: { error in
            guard case let .modelInvalid(_, reason) = error as? ClassifierError else { return false }
            return reason.contains("no trees") && reason.contains("train_classifier.py")
        }
    }

    /// The model file's number arrays go through `NumberArrayDecoding`'s
    /// concrete overloads: the values are the file's, and a wrong element is
    /// a type mismatch that names its place in the file.
    @Test func numberArraysDecodeToTheFilesValuesAndNameAWrongElement() throws {
        let json = """
            {"baseline": [0.5, -1e-3, 0, 0, 2], "trees": [{"output": 4, "feature": [0, -1, -1], "threshold": [0.25, 0, 0],
            "left": [1, 0, 0], "right": [2, 0, 0], "missingLeft": [true, false, false], "value": [0, 2.5, -1.125]}]}
            """
        let ensemble = try JSONDecoder().decode(TreeEnsemble.self, from: Data(json.utf8))
        var tree = Self.stump()
        tree.threshold[0] = 0.25
        tree.missingLeft[0] = true
        tree.value = [0, 2.5, -1.125]
        #expect(ensemble == TreeEnsemble(baseline: [0.5, -1e-3, 0, 0, 2], trees: [tree]))
        // Dense weights are arrays of arrays.
        let layer = try JSONDecoder().decode(
            FootstepModel.Layer.self, from: Data(#"{"weights": [[1, 2], [3.5, -4]], "biases": [0, 1], "activation": "relu"}"#.utf8))
        #expect(layer.weights == [[1, 2], [3.5, -4]] && layer.biases == [0, 1])

        let wrong = json.replacingOccurrences(of: "[0.25, 0, 0]", with: #"[0.25, "x", 0]"#)
        do {
            _ = try JSONDecoder().decode(TreeEnsemble.self, from: Data(wrong.utf8))
            Issue.record("a string among the thresholds decoded")
        } catch let DecodingError.typeMismatch(type, context) {
            #expect(ObjectIdentifier(type) == ObjectIdentifier(Double.self))
            #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["trees", "0", "threshold", "1"])
        }
    }
}
