import FootstepClassifier

/// What the recording's own footsteps sound like: the timbre and level of
/// every footstep the classifier was sure of (footstep probability at least
/// `sureProbability`, a type named, not ringing: one gait context lets leave
/// at once) in the `span` seconds before an impact and the `reach` after it.
///
/// A neighbour's steps through one floor sound alike all night; a listener
/// who has heard a few clear ones knows the doubtful ones by ear. Gait
/// context asks `alikeCount(of:)`: how many remembered footsteps are within
/// `timbreTolerance` (``EventTimbre``) and `levelTolerance` (LAFmax) of an
/// impact. Nothing is compared with a fixed spectrum, so the floor, the
/// microphone and its gain cancel out, as in the walk rule.
///
/// Storage is reserved in `init`; `add` and `alikeCount` do not allocate.
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

    private typealias Footstep = (onset: Double, laMax: Double, timbre: EventTimbre)
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
    /// it: remembers a sure, typed footstep that does not ring (`isSettled`,
    /// gait context's verdict that it needs no company), and forgets those
    /// no later question can reach.
    mutating func add(_ event: AnalyzedEvent, isSettled: Bool) {
        let cutoff = event.onsetSeconds - Self.span - reach
        if let first = footsteps.first, first.onset < cutoff { footsteps.removeAll { $0.onset < cutoff } }
        guard event.kind == .footstep, isSettled, event.footstepProbability >= Self.sureProbability,
            let timbre = event.timbre
        else { return }
        if footsteps.count == Self.capacity { footsteps.removeFirst() }
        footsteps.append((event.onsetSeconds, event.laMax, timbre))
    }

    /// How many remembered footsteps from `span` before `event` to `reach`
    /// after it sound like it (0 when its timbre was not measured). Every
    /// impact up to `reach` after it must have been added.
    func alikeCount(of event: AnalyzedEvent) -> Int {
        guard let timbre = event.timbre else { return 0 }
        let from = event.onsetSeconds - Self.span
        let through = event.onsetSeconds + reach
        return footsteps.count {
            $0.onset >= from && $0.onset <= through && $0.onset != event.onsetSeconds
                && abs($0.laMax - event.laMax) <= Self.levelTolerance
                && $0.timbre.distance(to: timbre) <= Self.timbreTolerance
        }
    }
}
