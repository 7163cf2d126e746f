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
    /// The second look's features (`FootstepModel.FrameNetwork.Decision.SecondLook`):
    /// `featureNames`, then
    /// - `first_look`: the candidate's own first look (`probability(of:)`);
    /// - `first_look_footsteps_2s`: how many other candidates more than
    ///   `selfSeconds` and at most `window` away have a first look at least
    ///   `firstFootstep`;
    /// - `first_look_mean_2s`: the mean first look of the other candidates
    ///   there (0 with none);
    /// - `first_look_beat_miss`: how far the candidate misses the beat of
    ///   those footsteps (`beatMiss`).
    public static let secondFeatureNames =
        featureNames + ["first_look", "first_look_footsteps_2s", "first_look_mean_2s", "first_look_beat_miss"]
    /// A first look this high counts as a footstep for the second.
    public static let firstFootstep = 0.5
    /// The gait intervals, seconds, a beat is looked for at.
    public static let beatRange = 0.25...1.15
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
    private let secondTrees: FlatTreeEnsemble?
    private var logit = [0.0]

    public init(_ decision: FootstepModel.FrameNetwork.Decision) {
        threshold = decision.threshold
        trees = FlatTreeEnsemble(decision.trees)
        secondTrees = decision.secondLook.map { FlatTreeEnsemble($0.trees) }
    }

    /// Whether `threshold` applies to a second look (`secondProbability(of:)`).
    public var hasSecondLook: Bool { secondTrees != nil }

    /// The first look: the probability that the candidate with `features`
    /// (`featureNames` order; a longer array's further features are not
    /// read) is a footstep.
    public mutating func probability(of features: [Double]) -> Double {
        trees.logits(features, into: &logit)
        return 1 / (1 + exp(-logit[0]))
    }

    /// The second look's probability from `features` in `secondFeatureNames`
    /// order; the first look's without a second look.
    public mutating func secondProbability(of features: [Double]) -> Double {
        guard let secondTrees else { return probability(of: features) }
        secondTrees.logits(features, into: &logit)
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

    /// How far a candidate at `time` (seconds) misses the beat of the
    /// footsteps at `times`: the least |miss| / d over each of them at a gait
    /// interval d = |time − s| in `beatRange`, the miss being the distance
    /// from where the beat goes on (time + (time − s), or s − (time − s)) to
    /// the nearest of `times`; 1 when none is at a gait interval or the
    /// nearest is further off than d.
    public static func beatMiss(_ time: Double, _ times: some Collection<Double>) -> Double {
        var best = 1.0
        for s in times {
            let d = time - s
            guard beatRange.contains(abs(d)) else { continue }
            best = min(best, nearest(to: time + d, in: times) / abs(d), nearest(to: s - d, in: times) / abs(d))
        }
        return best
    }

    private static func nearest(to target: Double, in times: some Collection<Double>) -> Double {
        var nearest = Double.infinity
        for u in times { nearest = min(nearest, abs(u - target)) }
        return nearest
    }
}
