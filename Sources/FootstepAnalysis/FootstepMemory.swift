import FootstepClassifier

/// The footsteps the classifier was sure of (footstep probability at least
/// `sureProbability`), with their timbre and level, from `span` seconds
/// before an impact to `reach` after it.
///
/// Gait context asks two questions of it:
/// - `sureCount(around:)`: has the walker been heard clearly? A footstep the
///   classifier doubts is one only when sure ones are around it; in an hour
///   of doors, drops, music and television with nobody walking, sure
///   footsteps are rare, during a walk they are not.
/// - `alikeCount(of:)`: how many of them sound like an impact (within
///   `timbreTolerance`, ``EventTimbre``, and `levelTolerance`, LAFmax)? A
///   neighbour's steps through one floor sound alike all night; a listener
///   who has heard a few clear ones knows the doubtful ones by ear. Nothing
///   is compared with a fixed spectrum, so the floor, the microphone and
///   its gain cancel out, as in the walk rule.
///
/// Storage is reserved in `init`; `add` and the questions do not allocate.
struct FootstepMemory {
    /// How far back footsteps are remembered (seconds).
    static let span = 60.0
    /// A footstep is remembered when the classifier gave it at least this.
    static let sureProbability = 0.8
    /// How alike an impact and a remembered footstep must sound (dB, mean
    /// absolute difference of the eight band levels) and how alike in level
    /// (dB LAFmax: a walker crosses the room above).
    static let timbreTolerance: Float = 8
    static let levelTolerance = 10.0
    /// The most footsteps remembered: `span` of a run at 4 steps a second.
    static let capacity = 256

    private typealias Footstep = (onset: Double, laMax: Double, timbre: EventTimbre?)
    /// Remembered footsteps in onset order.
    private var footsteps: [Footstep] = []
    /// How far after an impact its question looks (seconds): the gait
    /// context's hold, so that every footstep it counts has been added.
    private let reach: Double

    init(reach: Double) {
        self.reach = reach
        footsteps.reserveCapacity(Self.capacity)
    }

    /// Called with every impact in onset order, as the classifier labelled
    /// it: remembers a sure footstep, and forgets those no later question
    /// can reach.
    mutating func add(_ event: AnalyzedEvent) {
        let cutoff = event.onsetSeconds - Self.span - reach
        if let first = footsteps.first, first.onset < cutoff { footsteps.removeAll { $0.onset < cutoff } }
        guard event.kind == .footstep, event.footstepProbability >= Self.sureProbability else { return }
        if footsteps.count == Self.capacity { footsteps.removeFirst() }
        footsteps.append((event.onsetSeconds, event.laMax, event.timbre))
    }

    /// How many remembered footsteps other than `event` lie from `span`
    /// before it to `reach` after it. Every impact up to `reach` after it
    /// must have been added for the final answer; before that the count can
    /// only grow.
    func sureCount(around event: AnalyzedEvent) -> Int {
        count(around: event) { _ in true }
    }

    /// How many remembered footsteps from `span` before `event` to `reach`
    /// after it sound like it (0 when its timbre was not measured). Every
    /// impact up to `reach` after it must have been added.
    func alikeCount(of event: AnalyzedEvent) -> Int {
        guard let timbre = event.timbre else { return 0 }
        return count(around: event) { footstep in
            guard let other = footstep.timbre else { return false }
            return abs(footstep.laMax - event.laMax) <= Self.levelTolerance
                && other.distance(to: timbre) <= Self.timbreTolerance
        }
    }

    private func count(around event: AnalyzedEvent, where accepts: (Footstep) -> Bool) -> Int {
        let from = event.onsetSeconds - Self.span
        let through = event.onsetSeconds + reach
        return footsteps.count {
            $0.onset >= from && $0.onset <= through && $0.onset != event.onsetSeconds && accepts($0)
        }
    }
}
