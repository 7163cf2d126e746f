/// Gradient-boosted decision trees (scikit-learn's
/// `HistGradientBoostingClassifier`, exported by `tools/train_classifier.py`):
/// a class's logit is its baseline plus the leaf value each of its trees
/// reaches.
///
/// The nodes of every tree are stored flat, one array per field, so a
/// prediction walks arrays and allocates nothing. A node with `feature` −1 is
/// a leaf holding `value`; any other node sends a feature at or below its
/// `threshold` to `left`, above it to `right`, and a missing (NaN) one to
/// `left` when `missingLeft` is set, as scikit-learn does (indices are
/// within the tree). `FootstepModelClassifier` replaces non-finite features
/// with 0 before standardising, as for a network, so it passes no NaN.
public struct TreeEnsemble: Sendable, Codable, Equatable {
    /// One tree's nodes; node 0 is its root.
    public struct Tree: Sendable, Codable, Equatable {
        /// The class whose logit the tree adds to (`FootstepModel.classNames` order).
        public var output: Int
        public var feature: [Int]
        public var threshold: [Double]
        public var left: [Int]
        public var right: [Int]
        public var missingLeft: [Bool]
        public var value: [Double]

        public init(
            output: Int, feature: [Int], threshold: [Double], left: [Int], right: [Int], missingLeft: [Bool], value: [Double]
        ) {
            self.output = output
            self.feature = feature
            self.threshold = threshold
            self.left = left
            self.right = right
            self.missingLeft = missingLeft
            self.value = value
        }
    }

    /// Each class's logit before any tree.
    public var baseline: [Double]
    public var trees: [Tree]

    public init(baseline: [Double], trees: [Tree]) {
        self.baseline = baseline
        self.trees = trees
    }

    /// Checks every tree against `features` inputs and `classes` outputs:
    /// node arrays of one length, finite leaf values, children inside the
    /// tree and after their parent (so every walk ends), features in range.
    func validate(features: Int, classes: Int) -> String? {
        guard baseline.count == classes, baseline.allSatisfy(\.isFinite) else {
            return "the trees' baseline must have \(classes) finite values"
        }
        guard !trees.isEmpty else { return "the tree ensemble has no trees" }
        for (index, tree) in trees.enumerated() {
            let count = tree.feature.count
            guard count > 0, tree.threshold.count == count, tree.left.count == count, tree.right.count == count,
                tree.missingLeft.count == count, tree.value.count == count
            else {
                return "tree \(index) has node arrays of different lengths"
            }
            guard (0..<classes).contains(tree.output) else {
                return "tree \(index) adds to class \(tree.output), outside 0..<\(classes)"
            }
            for node in 0..<count {
                guard tree.feature[node] >= 0 else {
                    guard tree.value[node].isFinite else { return "tree \(index) leaf \(node) has a non-finite value" }
                    continue
                }
                guard tree.feature[node] < features, !tree.threshold[node].isNaN else {
                    return "tree \(index) node \(node) splits on feature \(tree.feature[node]) of \(features) (or at NaN)"
                }
                guard (node + 1..<count).contains(tree.left[node]), (node + 1..<count).contains(tree.right[node]) else {
                    return "tree \(index) node \(node) has a child that is not a later node of the tree"
                }
            }
        }
        return nil
    }
}

/// `TreeEnsemble` laid out for prediction: all trees' nodes in one set of
/// arrays, each tree's root at `roots[t]`, child indices absolute.
struct FlatTreeEnsemble {
    private let baseline: [Double]
    private let roots: [Int]
    private let outputs: [Int]
    private let feature: [Int]
    private let threshold: [Double]
    private let left: [Int]
    private let right: [Int]
    private let missingLeft: [Bool]
    private let value: [Double]

    init(_ ensemble: TreeEnsemble) {
        var roots: [Int] = []
        var feature: [Int] = []
        var threshold: [Double] = []
        var left: [Int] = []
        var right: [Int] = []
        var missingLeft: [Bool] = []
        var value: [Double] = []
        for tree in ensemble.trees {
            let offset = feature.count
            roots.append(offset)
            feature += tree.feature
            threshold += tree.threshold
            left += tree.left.map { $0 + offset }
            right += tree.right.map { $0 + offset }
            missingLeft += tree.missingLeft
            value += tree.value
        }
        baseline = ensemble.baseline
        self.roots = roots
        outputs = ensemble.trees.map(\.output)
        self.feature = feature
        self.threshold = threshold
        self.left = left
        self.right = right
        self.missingLeft = missingLeft
        self.value = value
    }

    /// Writes each class's logit for `inputs` into `logits` (no allocation).
    func logits(_ inputs: [Double], into logits: inout [Double]) {
        for k in 0..<baseline.count { logits[k] = baseline[k] }
        for t in 0..<roots.count {
            var node = roots[t]
            while feature[node] >= 0 {
                let x = inputs[feature[node]]
                let goesLeft = x.isNaN ? missingLeft[node] : x <= threshold[node]
                node = goesLeft ? left[node] : right[node]
            }
            logits[outputs[t]] += value[node]
        }
    }
}
