/// Gradient-boosted decision trees (scikit-learn's
/// `HistGradientBoostingClassifier`, exported by `tools/train_classifier.py`):
/// a class's logit is its baseline plus the leaf value each of its trees
/// reaches.
///
/// Each tree's nodes are stored as the file has them, one array per field
/// (`FlatTreeEnsemble` lays them out for prediction). A node with `feature` −1 is
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

/// `TreeEnsemble` laid out for prediction: every node of every tree in one
/// array of 16-byte nodes, a split's two children side by side (left, then
/// right). A leaf sends every input to itself, so a walk may take more steps
/// than its leaf's depth and still end there: trees are walked four at a
/// time for the depth of the deepest of the four, without a branch, so the
/// four walks' memory reads overlap (trees sorted by depth, so the four are
/// alike).
struct FlatTreeEnsemble {
    /// A split, or a leaf (`threshold` +∞, `missingLeft`, `children` itself).
    private struct Node {
        var threshold: Double
        /// The left child's index; the right child's is one more.
        var children: UInt32
        var feature: UInt16
        /// Whether a missing (NaN) feature goes left.
        var missingLeft: Bool
    }

    /// Four trees walked together: their roots, the classes they add to, the steps to take.
    private struct Group {
        var roots: SIMD4<UInt32>
        var outputs: (Int, Int, Int, Int)
        var depth: Int
    }

    private let baseline: [Double]
    private let groups: [Group]
    private let nodes: [Node]
    /// A leaf's value at its node's index (0 for a split).
    private let values: [Double]

    /// - Precondition: `ensemble` has passed `TreeEnsemble.validate` (every child a later node of its tree).
    init(_ ensemble: TreeEnsemble) {
        var nodes: [Node] = []
        var values: [Double] = []
        func leaf(_ value: Double) -> Int {
            let index = nodes.count
            nodes.append(Node(threshold: .infinity, children: UInt32(index), feature: 0, missingLeft: true))
            values.append(value)
            return index
        }
        /// Lays out node `source` of `tree` at `target` and its subtree after it; returns its depth.
        func place(_ tree: TreeEnsemble.Tree, _ source: Int, at target: Int) -> Int {
            guard tree.feature[source] >= 0 else {
                nodes[target] = Node(threshold: .infinity, children: UInt32(target), feature: 0, missingLeft: true)
                values[target] = tree.value[source]
                return 0
            }
            let first = leaf(0)
            _ = leaf(0)
            nodes[target] = Node(
                threshold: tree.threshold[source], children: UInt32(first), feature: UInt16(tree.feature[source]),
                missingLeft: tree.missingLeft[source])
            return 1 + max(place(tree, tree.left[source], at: first), place(tree, tree.right[source], at: first + 1))
        }
        var trees = ensemble.trees.map { tree in
            let root = leaf(0)
            return (root: root, output: tree.output, depth: place(tree, 0, at: root))
        }
        trees.sort { $0.depth > $1.depth }
        // A single leaf worth 0 fills the last group.
        let empty = leaf(0)
        while trees.count % 4 != 0 { trees.append((empty, 0, 0)) }
        groups = stride(from: 0, to: trees.count, by: 4).map { g in
            let four = trees[g..<(g + 4)]
            return Group(
                roots: SIMD4(four.map { UInt32($0.root) }),
                outputs: (trees[g].output, trees[g + 1].output, trees[g + 2].output, trees[g + 3].output),
                depth: four.map(\.depth).max() ?? 0)
        }
        baseline = ensemble.baseline
        self.nodes = nodes
        self.values = values
    }

    /// Writes each class's logit for `inputs` into `logits` (no allocation).
    func logits(_ inputs: [Double], into logits: inout [Double]) {
        inputs.withUnsafeBufferPointer { inputs in
            logits.withUnsafeMutableBufferPointer { self.logits(inputs, into: $0) }
        }
    }

    /// Writes each class's logit for `inputs` into `logits`, which holds one
    /// value a class (no allocation).
    func logits(_ inputs: UnsafeBufferPointer<Double>, into logits: UnsafeMutableBufferPointer<Double>) {
        for k in 0..<baseline.count { logits[k] = baseline[k] }
        nodes.withUnsafeBufferPointer { nodes in
        values.withUnsafeBufferPointer { values in
            @inline(__always) func step(_ index: Int) -> Int {
                let node = nodes[index]
                let x = inputs[Int(node.feature)]
                let goesLeft = x <= node.threshold || (x.isNaN && node.missingLeft)
                return Int(node.children) &+ (goesLeft ? 0 : 1)
            }
            for group in groups {
                var (a, b, c, d) = (Int(group.roots[0]), Int(group.roots[1]), Int(group.roots[2]), Int(group.roots[3]))
                for _ in 0..<group.depth {
                    (a, b, c, d) = (step(a), step(b), step(c), step(d))
                }
                logits[group.outputs.0] += values[a]
                logits[group.outputs.1] += values[b]
                logits[group.outputs.2] += values[c]
                logits[group.outputs.3] += values[d]
            }
        }
        }
    }
}
