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
    ///   at most `window` from it;
    /// - `network_beat`: how strongly the network hears a walk's beat
    ///   through the candidate (`networkBeat`), whatever anything was labelled.
    public static let featureNames = [
        "detection", "footstep_label", "footstep_probability", "network_50ms", "network_20ms", "duration_s",
        "nearest_footstep_s", "footsteps_2s", "network_onsets_05_2s", "network_onsets_08_2s",
        "network_onsets_03_2s", "detections_2s", "network_beat",
    ]
    /// Seconds either side of a candidate its features look at.
    public static let window = 2.0
    /// The gait intervals, hops (0.25–1.15 s, `beatRange`), `networkBeat` looks at …
    public static let beatHops = 25...115
    /// … taking the network's highest probability within this many hops (40 ms) of each beat.
    public static let beatReach = 4
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

    /// How strongly the network hears a walk's beat through hop `centre`:
    /// over every gait interval d in `beatHops`, the mean of the three
    /// highest of `peak` at d and 2d hops before and after it (2d after
    /// only when within `horizon` hops: what is heard when the candidate is
    /// judged); the highest such mean. A walk gives a candidate on its beat
    /// three or four strong neighbours at one interval, even where the event
    /// model doubted every step; scattered impacts do not line up.
    ///
    /// - Parameter peak: the network's highest probability within
    ///   `beatReach` hops of a hop, 0 for a hop outside what was heard.
    public static func networkBeat(at centre: Int, horizon: Int, peak: (Int) -> Float) -> Double {
        var best = 0.0
        for d in beatHops {
            let a = Double(peak(centre - d))
            let b = Double(peak(centre + d))
            let c = Double(peak(centre - 2 * d))
            let e = 2 * d <= horizon ? Double(peak(centre + 2 * d)) : 0
            best = max(best, (a + b + c + e - min(a, b, c, e)) / 3)
        }
        return best
    }
}
