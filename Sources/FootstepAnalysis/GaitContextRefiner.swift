import FootstepClassifier
import FootstepCore

/// A second look at the classifier's labels with the neighbouring impacts in
/// view, a few seconds behind the stream. Footsteps come in rhythm; door
/// slams, knocks and drops mostly come alone. So:
///
/// - **On the beat.** An impact the classifier called `other`, but with a
///   footstep probability of at least `rhythmMinimumProbability`, becomes an
///   `unknown` footstep when it lands on the beat of footsteps around it: one
///   0.25–0.8 s before and one the same interval (±15 %) after, or two
///   before or two after at that interval. Its confidence stays the
///   classifier's footstep probability, so it is always below 0.5.
/// - **Alone.** A footstep with no other footstep within
///   `GaitBoutTracker.maximumInterval` (1.5 s) on either side stays a
///   footstep only when the confidence of its type is at least
///   `loneMinimumConfidence`; otherwise it becomes `other`.
///
/// An event is held until the stream is `delay` seconds past its onset (by
/// then every neighbour that can matter has been reported), then released in
/// onset order; `finish` releases the rest. Earlier neighbours count with
/// their final labels, later ones with the classifier's.
///
/// Storage is reserved in `init`; `add` and `release` do not allocate.
struct GaitContextRefiner {
    static let rhythmMinimumProbability = 0.05
    static let loneMinimumConfidence = 0.9
    /// Step intervals (seconds) the rhythm rule recognises.
    static let stepIntervals = 0.25...0.8
    /// How far an interval may differ from the previous one (fraction of it).
    static let intervalTolerance = 0.15
    /// The furthest neighbour either rule looks at (two intervals ahead).
    static let contextSeconds = 2 * stepIntervals.upperBound

    /// Seconds between an event's onset and its release.
    let delay: Double
    private var pending: [AnalyzedEvent] = []
    /// Onsets of released footsteps within `contextSeconds` of the next release.
    private var recentFootsteps: [Double] = []
    /// Footstep onsets around the event being refined (scratch).
    private var neighbours: [Double] = []
    private let capacity = 128

    /// - Parameter reportDelay: the longest time between an onset and the
    ///   detector reporting the event.
    init(reportDelay: Double) {
        delay = Self.contextSeconds + reportDelay
        pending.reserveCapacity(capacity)
        recentFootsteps.reserveCapacity(capacity)
        neighbours.reserveCapacity(2 * capacity)
    }

    /// Holds a newly classified event (events arrive in onset order).
    mutating func add(_ event: AnalyzedEvent, output: (AnalysisOutput) -> Void) {
        if pending.count == capacity { releaseFirst(output: output) }
        pending.append(event)
    }

    /// Releases the events whose onset is at least `delay` before `streamSeconds`.
    mutating func release(upTo streamSeconds: Double, output: (AnalysisOutput) -> Void) {
        while let first = pending.first, first.onsetSeconds + delay <= streamSeconds {
            releaseFirst(output: output)
        }
    }

    /// Releases every held event (end of stream).
    mutating func finish(output: (AnalysisOutput) -> Void) {
        while !pending.isEmpty { releaseFirst(output: output) }
    }

    private mutating func releaseFirst(output: (AnalysisOutput) -> Void) {
        var event = pending.removeFirst()
        refine(&event)
        if event.kind == .footstep { recentFootsteps.append(event.onsetSeconds) }
        output(.event(event))
    }

    private mutating func refine(_ event: inout AnalyzedEvent) {
        let onset = event.onsetSeconds
        recentFootsteps.removeAll { $0 < onset - Self.contextSeconds }
        neighbours.removeAll(keepingCapacity: true)
        neighbours.append(contentsOf: recentFootsteps)
        for later in pending where later.kind == .footstep && later.onsetSeconds - onset <= Self.contextSeconds {
            neighbours.append(later.onsetSeconds)
        }
        switch event.kind {
        case .other where event.footstepProbability >= Self.rhythmMinimumProbability && isOnBeat(onset):
            event.kind = .footstep
            event.type = .unknown
            event.confidence = event.footstepProbability
        case .footstep where event.confidence < Self.loneMinimumConfidence && isAlone(onset):
            event.kind = .other
            event.type = .unknown
            event.confidence = 1 - event.footstepProbability
        default:
            break
        }
    }

    /// Whether `onset` continues a step rhythm of `neighbours`.
    private func isOnBeat(_ onset: Double) -> Bool {
        for previous in neighbours where Self.stepIntervals.contains(onset - previous) {
            let interval = onset - previous
            if hasNeighbour(near: onset + interval, interval: interval)
                || hasNeighbour(near: previous - interval, interval: interval)
            {
                return true
            }
        }
        for next in neighbours where Self.stepIntervals.contains(next - onset) {
            let interval = next - onset
            if hasNeighbour(near: next + interval, interval: interval) { return true }
        }
        return false
    }

    private func hasNeighbour(near time: Double, interval: Double) -> Bool {
        let tolerance = Self.intervalTolerance * interval
        return neighbours.contains { abs($0 - time) <= tolerance }
    }

    /// Whether no footstep is within a bout's step interval of `onset`.
    private func isAlone(_ onset: Double) -> Bool {
        !neighbours.contains { abs($0 - onset) <= GaitBoutTracker.maximumInterval }
    }
}
