import Foundation

/// The frame network's learned decision (`FootstepModel.FrameNetwork.Decision`):
/// whether a detection, or one of the frame step network's own onsets with
/// no detection near it, is a footstep, from `featureNames` (what is known
/// within `window` seconds of it). `FrameEvidence` forms the features;
/// `tools/eval/frame_decision.py` forms the same from the pipeline's output
/// and trains the trees.
///
/// `probability(of:)` walks the trees without allocating.
public struct FrameDecision: Sendable {
    /// The features, in the trees' order:
    /// - `detection`: 1 for a detection, 0 for a network onset;
    /// - `footstep_label`: 1 where the gait context labels it a footstep;
    /// - `footstep_probability`: its confidence when a footstep, 1 − its
    ///   confidence when `other` (0 for a network onset);
    /// - `network_50ms`, `network_20ms`: the network's highest probability
    ///   within 5 and 2 hops of the onset;
    /// - `duration_s`: the detection's length (0 for a network onset);
    /// - `nearest_footstep_s`: the gait context's nearest footstep more than
    ///   `selfSeconds` away, at most `window` (`window` when none);
    /// - `footsteps_2s`, `network_onsets_05_2s`, `network_onsets_08_2s`,
    ///   `network_onsets_03_2s`, `detections_2s`: how many of the gait
    ///   context's footsteps, of the network's onsets at least `strongOnset`,
    ///   `sureOnset` and `onsetFloor`, and of the detections lie more than `selfSeconds` and
    ///   at most `window` from it.
    public static let featureNames = [
        "detection", "footstep_label", "footstep_probability", "network_50ms", "network_20ms", "duration_s",
        "nearest_footstep_s", "footsteps_2s", "network_onsets_05_2s", "network_onsets_08_2s",
        "network_onsets_03_2s", "detections_2s",
    ]
    /// Seconds either side of a candidate its features look at.
    public static let window = 2.0
    /// A neighbour this close (seconds) is the candidate itself.
    public static let selfSeconds = 0.05
    /// The network's onsets at least this are candidates, and counted …
    public static let onsetFloor: Float = 0.3
    /// … and counted again at these two levels.
    public static let strongOnset: Float = 0.5
    public static let sureOnset: Float = 0.8

    public let threshold: Double
    private let trees: FlatTreeEnsemble
    private var logit = [0.0]

    public init(_ decision: FootstepModel.FrameNetwork.Decision) {
        threshold = decision.threshold
        trees = FlatTreeEnsemble(decision.trees)
    }

    /// The probability that the candidate with `features` (`featureNames`
    /// order) is a footstep.
    public mutating func probability(of features: [Double]) -> Double {
        trees.logits(features, into: &logit)
        return 1 / (1 + exp(-logit[0]))
    }
}
