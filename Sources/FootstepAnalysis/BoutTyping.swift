import FootstepClassifier
import FootstepCore

/// Names a footstep's type from its bout, as a person listening would,
/// instead of from the impact alone (whose level and colour depend on the
/// floor, the microphone and its gain):
///
/// - **shuffling**: the classifier heard a scrape (its most likely type),
///   checked first: a scrape can fire the detector twice, which looks like a
///   runner's cadence;
/// - **running**: the footsteps around it come at `runningCadence` (2.45
///   steps/s) or faster;
/// - **stomping**: it is `stompRiseDB` (4 dB) or more above the walker's
///   ordinary steps — the `referenceQuantile` (30 %) of the LAFmax of the
///   footsteps of the last `referenceSeconds` (5 min), once there are
///   `minimumReference` (5) of them — or the classifier heard a stomp and it
///   is no quieter than those ordinary steps (a walk of stomps only);
/// - otherwise **heel_strike**.
///
/// The type's confidence is the probability that the impact is a footstep,
/// so a footstep below 0.5 keeps type `unknown` (the contract of every
/// label). Levels are compared within one stream only, so the microphone's
/// gain and calibration cancel out.
///
/// Storage is reserved in `init`; `name` and `record` do not allocate.
struct BoutTyping {
    static let runningCadence = 2.45
    static let stompRiseDB = 4.0
    static let referenceQuantile = 0.3
    static let referenceSeconds = 300.0
    static let minimumReference = 5
    /// Neighbouring footsteps further apart than this are not one bout's steps.
    static let stepIntervals = 0.2...1.2
    static let capacity = 128

    /// Recent footsteps (onset seconds, LAFmax), a ring of `capacity`.
    private var onsets: [Double]
    private var levels: [Double]
    private var count = 0
    private var next = 0
    private var scratch: [Double]

    init() {
        onsets = [Double](repeating: 0, count: Self.capacity)
        levels = onsets
        scratch = []
        scratch.reserveCapacity(Self.capacity)
    }

    /// Gives the released footstep `event` its type from its bout, then remembers it.
    mutating func name(_ event: inout AnalyzedEvent) {
        guard event.kind == .footstep else { return }
        let heard = event.type
        let confidence = event.footstepProbability
        let reference = reference(before: event.onsetSeconds)
        if confidence < 0.5 {
            event.type = .unknown
        } else if heard == .shuffling {
            event.type = .shuffling
        } else if cadence(around: event.onsetSeconds) >= Self.runningCadence {
            event.type = .running
        } else if let reference, event.laMax - reference >= Self.stompRiseDB {
            event.type = .stomping
        } else if heard == .stomping, reference.map({ event.laMax >= $0 }) ?? true {
            event.type = .stomping
        } else {
            event.type = .heelStrike
        }
        if event.type != .unknown { event.confidence = confidence }
        record(event)
    }

    private mutating func record(_ event: AnalyzedEvent) {
        onsets[next] = event.onsetSeconds
        levels[next] = event.laMax
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// Steps per second from the nearest footsteps before and after `onset`
    /// that are a step apart (0 when there is none).
    private func cadence(around onset: Double) -> Double {
        var before = Double.infinity
        var after = Double.infinity
        for i in 0..<count {
            let d = onset - onsets[i]
            if d > 0, Self.stepIntervals.contains(d) { before = min(before, d) }
            if d < 0, Self.stepIntervals.contains(-d) { after = min(after, -d) }
        }
        switch (before.isFinite, after.isFinite) {
        case (true, true): return 2 / (before + after)
        case (true, false): return 1 / before
        case (false, true): return 1 / after
        default: return 0
        }
    }

    /// The walker's ordinary level: a low quantile of the recent footsteps' LAFmax.
    private mutating func reference(before onset: Double) -> Double? {
        scratch.removeAll(keepingCapacity: true)
        for i in 0..<count where onset - onsets[i] >= 0 && onset - onsets[i] <= Self.referenceSeconds {
            scratch.append(levels[i])
        }
        guard scratch.count >= Self.minimumReference else { return nil }
        scratch.sortInPlace()
        return scratch[Int(Self.referenceQuantile * Double(scratch.count - 1))]
    }
}
