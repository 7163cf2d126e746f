import FootstepClassifier
import FootstepCore
import FootstepDSP

/// The frame step network's say on the event model's labels, after the gait
/// context, as its learned decision (``FrameDecision``) takes it: every
/// detection, and every network onset at least `FrameDecision.onsetFloor`
/// with no detection within 100 ms (``AddedSteps``), waits until everything
/// within `FrameDecision.window` after it has been settled by the gait
/// context and heard by the network, and is a footstep where the trees'
/// probability is at least their threshold. A detection called `other` is
/// then rescued (a footstep of the event model's likeliest type, its
/// footstep probability raised to the trees'), a footstep below it vetoed
/// (`other`, its probability lowered to the trees'). A network onset the
/// trees accept becomes a footstep of its own, reported as a settled event,
/// with the type of the nearest of the gait context's footsteps within the
/// window (or, with none there, of the nearest one remembered: the walker's
/// type); it follows that footstep: when the gait context names its type
/// again, a ``TypeRevision`` names the added step's too. (The bout reviser
/// comes after this stage: it types an added step with the rest of its bout,
/// `BoutRevisionStage`.)
///
/// The network hears a frame `lookahead` hops (0.3 s) after it, and the
/// decision waits for the window, so a settled event leaves the gait context
/// before it is judged. Live events stay fast: such an event goes out at
/// once as `.provisional` with its label, and once judged, a ``TypeRevision``
/// that `settles` it follows with the fused label. Revisions wait in order
/// until their event is judged; a provisional report and levels pass
/// straight through. An event the decision changed keeps that change in its
/// later revisions (the gait context's): a vetoed footstep stays `other`.
///
/// Storage is reserved in `init`; `process` and `accept` do not allocate.
struct FrameEvidence: ~Copyable {
    /// How far from an onset (hops, each side) the network's probability counts.
    static let reach = 5
    /// Hops of probabilities kept (20.48 s): more than the longest a decision comes after its event
    /// (`maximumSettlementDelay` for the longest `settledDelay`, 4.65 s, is 11.9 s).
    static let memoryHops = 2048
    static let capacity = 256
    /// The longest look-ahead a model may have (hops: `FootstepModel.validate`).
    static let maximumLookahead = FootstepModel.FrameNetwork.maximumLookahead
    /// The longest time, seconds, after its onset an added step is
    /// reported, or an event is judged, when the gait context settles an
    /// event at most `settledDelay` after its onset: the network's
    /// look-ahead, the window and `settledDelay` (`waitHops`, rounded up a
    /// hop), `AddedSteps.radius` (a network onset is known that late) and
    /// two hops.
    static func maximumDelay(settledDelay: Double) -> Double {
        Double(maximumLookahead + AddedSteps.radius + 4) / 100 + FrameDecision.window + settledDelay
    }
    /// The longest time, seconds, after its onset a settlement or revision
    /// leaves here: revisions leave in the order they came, so one waits
    /// behind a later event reported before the gait context settled it,
    /// whose onset is at most `settledDelay` later.
    static func maximumSettlementDelay(settledDelay: Double) -> Double {
        maximumDelay(settledDelay: settledDelay) + settledDelay
    }
    /// A detection this close (100 ms, the scorer's tolerance) to one of the network's onsets is that step.
    static let sameStepSeconds = 0.1

    private enum Pending {
        /// A settled event reported provisionally here, to settle when heard.
        case settle(AnalyzedEvent)
        case revise(TypeRevision)

        var onsetFrame: Int64 {
            switch self {
            case let .settle(event): event.onsetFrame
            case let .revise(revision): revision.onsetFrame
            }
        }
    }

    /// What the network made of an event, with its probability near the onset.
    private enum Decision {
        case rescued(Double), vetoed(Double), kept
    }

    /// An added step, as last reported, and the onset of the footstep it took its type from.
    private struct Follower {
        var onsetFrame: Int64
        var leader: Int64
        var type: FootstepType
        var probability: Double
    }

    /// A recent event: its type probabilities, its confidence as last
    /// reported by the gait context, its length and what the decision made of it.
    private struct Recent {
        var onsetFrame: Int64
        var kind: EventKind
        var types: TypeProbabilities
        var confidence: Double
        var durationSeconds: Double
        var decision: Decision?
    }

    private var network: FrameStepNetwork
    /// The learned decision.
    private var trees: FrameDecision
    /// Its features, formed here for each candidate (`FrameDecision.featureNames`).
    private var features: [Double]
    /// Hops after an onset until every detection and network onset within
    /// the window could have been reported and settled: it is judged then.
    private let waitHops: Int
    /// `FrameDecision.window` in hops: how far after a candidate `network_beat` looks.
    private let beatHorizon: Int
    /// `FrameDecision.window` in frames: how far an added step looks for the footstep whose type it takes.
    private let windowFrames: Int64
    /// A footstep this close (50 ms) is the impact itself, not a neighbour.
    private let selfFrames: Int64
    private let hopFrames: Int
    private let sampleRate: Double
    /// The network's probability of each of the last `memoryHops` frames (`frame % memoryHops`).
    private var probabilities: [Float]
    /// Frames judged so far (all frames before this one have a probability).
    private var judged = 0
    /// The network's highest probability within
    /// `FrameDecision.beatReach` hops of each of the last `memoryHops` frames
    /// (`frame % memoryHops`), written once the hops after the frame are
    /// judged: what `networkBeat` reads, 364 values a candidate.
    private var beatPeaks: [Float]
    private var pending: [Pending] = []
    /// Recent events, in the order they came.
    private var recent: [Recent] = []
    /// The gait context's recent footsteps (as settled, with their later types).
    private var footsteps: [(onsetFrame: Int64, type: FootstepType, types: TypeProbabilities)] = []
    /// The network's onsets that may become footsteps (optional only to be taken out while in use).
    private var added: AddedSteps?
    /// Recent added steps, each with the footstep whose type it follows.
    private var followers: [Follower] = []
    /// The network's recent onsets (`AddedSteps`' rule, detected or not), which the decision counts.
    private var onsets: [(hop: Int, probability: Float)] = []
    /// `sameStepSeconds` in frames.
    private let sameStepFrames: Int64

    /// - Parameters:
    ///   - decision: the model's learned decision (`FootstepModelClassifier.frameDecision`).
    ///   - hopFrames: the detector's hop (10 ms).
    ///   - settledDelay: the longest time, seconds, from an onset until the
    ///     gait context has settled that event (the detector's report delay
    ///     and the hold): every detection and footstep near an onset has been
    ///     seen by then.
    ///   - calibrationOffset: dBFS → dB SPL, for an added step's exposure.
    init(
        model: FootstepModel.FrameNetwork, decision: FrameDecision, hopFrames: Int, sampleRate: Double,
        settledDelay: Double, calibrationOffset: Double
    ) {
        network = FrameStepNetwork(model: model)
        trees = decision
        features = [Double](repeating: 0, count: FrameDecision.featureNames.count)
        self.hopFrames = hopFrames
        self.sampleRate = sampleRate
        windowFrames = Int64((FrameDecision.window * sampleRate).rounded())
        selfFrames = Int64((FrameDecision.selfSeconds * sampleRate).rounded())
        sameStepFrames = Int64((Self.sameStepSeconds * sampleRate).rounded())
        let hopsPerSecond = sampleRate / Double(hopFrames)
        // The decision also counts the network's onsets in the window: each is
        // known `AddedSteps.radius` hops after its frame.
        waitHops = Int(((FrameDecision.window + settledDelay) * hopsPerSecond).rounded(.up)) + AddedSteps.radius + 1
        beatHorizon = Int((FrameDecision.window * hopsPerSecond).rounded())
        added = AddedSteps(
            threshold: Double(FrameDecision.onsetFloor), hopFrames: hopFrames, sampleRate: sampleRate,
            calibrationOffset: calibrationOffset)
        probabilities = [Float](repeating: 0, count: Self.memoryHops)
        beatPeaks = [Float](repeating: 0, count: Self.memoryHops)
        pending.reserveCapacity(Self.capacity)
        recent.reserveCapacity(Self.capacity)
        footsteps.reserveCapacity(Self.capacity)
        followers.reserveCapacity(Self.capacity)
        onsets.reserveCapacity(Self.capacity)
    }

    /// Runs the network on one hop, given as its `FramePicture` column
    /// (formed from the detector's spectra of the hop) with its levels, then
    /// releases what it has now heard; `background` is the detector's Fast
    /// A-weighted background level after the hop (for an added step's intensity).
    mutating func process(
        column: UnsafeBufferPointer<Float>, levels: BlockLevels, background: Double, output: (AnalysisOutput) -> Void
    ) {
        let probability = network.process(column)
        let frame = network.hops - 1 - network.lookahead
        if frame >= 0 {
            probabilities[frame % Self.memoryHops] = probability
            judged = frame + 1
            let settled = frame - FrameDecision.beatReach
            if settled >= 0 {
                beatPeaks[settled % Self.memoryHops] = nearMaximum(settled, reach: FrameDecision.beatReach)
            }
        }
        if var steps = added.take() {
            steps.record(levels)
            let frame = frame - AddedSteps.radius
            if frame >= 0, let onset = steps.onset(frame: frame, probabilities: probabilities, background: background) {
                if onsets.count == Self.capacity { onsets.removeFirst() }
                onsets.append((onset.hop, Float(onset.probability)))
                if !detected(near: onset.impact.onsetFrame) { steps.keep(onset) }
            }
            added = steps
        }
        release(output: output, final: false)
        releaseAdded(output: output, final: false)
    }

    /// Takes one output of the gait context.
    mutating func accept(_ item: AnalysisOutput, output: (AnalysisOutput) -> Void) {
        switch item {
        case .levels:
            output(item)
        case let .provisional(event):
            remember(event)
            output(item)
        case let .event(event):
            remember(event)
            if event.kind == .footstep { rememberFootstep(event.onsetFrame, type: event.type, types: event.typeProbabilities) }
            if pending.isEmpty, let decision = decide(event.onsetFrame, kind: event.kind) {
                output(.event(fused(event, decision)))
            } else {
                output(.provisional(event))
                enqueue(.settle(event), output: output)
            }
        case let .revision(revision):
            relabel(revision)
            if revision.kind == .footstep {
                rememberFootstep(revision.onsetFrame, type: revision.type, types: types(of: revision.onsetFrame))
                retypeFollowers(of: revision.onsetFrame, as: revision.type, output: output)
            }
            if pending.isEmpty, let decision = decide(revision.onsetFrame, kind: revision.kind) {
                if let fused = fused(revision, decision) { output(.revision(fused)) }
            } else {
                enqueue(.revise(revision), output: output)
            }
        }
    }

    /// Releases everything still waiting (end of stream): an event in the
    /// last `lookahead + reach` hops, which the network never hears, keeps its label.
    mutating func finish(output: (AnalysisOutput) -> Void) {
        release(output: output, final: true)
        releaseAdded(output: output, final: true)
    }

    /// Reports the waiting onsets judged by now (all when `final`) that the
    /// decision accepts, with no detection near, as footsteps.
    private mutating func releaseAdded(output: (AnalysisOutput) -> Void, final: Bool) {
        guard var steps = added.take() else { return }
        while let first = steps.candidates.first, final || first.hop + waitHops < judged {
            var candidate = steps.removeFirst()
            let onsetFrame = candidate.impact.onsetFrame
            guard !detected(near: onsetFrame) else { continue }
            candidate.probability = judge(onsetFrame, centre: candidate.hop, detection: nil, kind: .other)
            guard candidate.probability >= trees.threshold else { continue }
            // The walker's type: the nearest footstep still remembered when none is within the window.
            let leader = nearestFootstep(to: onsetFrame) ?? nearestFootstep(to: onsetFrame, within: .max)
            let classification = Classification(
                kind: .footstep, type: leader?.type ?? .unknown, confidence: candidate.probability,
                intensity: Intensity(levelAboveBackground: candidate.impact.lafMax - candidate.impact.backgroundLAF),
                footstepProbability: candidate.probability, typeProbabilities: leader?.types ?? .uniform)
            output(.event(AnalyzedEvent(candidate.impact, classification: classification, sampleRate: sampleRate)))
            if let leader {
                if followers.count == Self.capacity { followers.removeFirst() }
                followers.append(
                    Follower(
                        onsetFrame: onsetFrame, leader: leader.onsetFrame, type: leader.type,
                        probability: candidate.probability))
            }
        }
        added = steps
    }

    /// Names again the type of each added step that follows the footstep at
    /// `leader`, now `type`.
    private mutating func retypeFollowers(of leader: Int64, as type: FootstepType, output: (AnalysisOutput) -> Void) {
        for index in followers.indices where followers[index].leader == leader && followers[index].type != type {
            let follower = followers[index]
            output(
                .revision(
                    TypeRevision(
                        onsetFrame: follower.onsetFrame, onsetSeconds: Double(follower.onsetFrame) / sampleRate,
                        previousType: follower.type,
                        type: type, confidence: follower.probability, footstepProbability: follower.probability)))
            followers[index].type = type
        }
    }

    /// Whether a detection (any label) lies within `sameStepSeconds` of `onsetFrame`.
    private func detected(near onsetFrame: Int64) -> Bool {
        recent.contains { abs($0.onsetFrame - onsetFrame) <= sameStepFrames }
    }

    /// The gait context's footstep nearest `onsetFrame`, more than 50 ms and
    /// at most the window (or `within` frames) away.
    private func nearestFootstep(to onsetFrame: Int64, within: Int64? = nil)
        -> (onsetFrame: Int64, type: FootstepType, types: TypeProbabilities)?
    {
        let limit = within ?? windowFrames
        var best: (gap: Int64, index: Int)?
        for (index, footstep) in footsteps.enumerated() {
            let gap = abs(footstep.onsetFrame - onsetFrame)
            guard gap > selfFrames, gap <= limit, gap < best?.gap ?? .max else { continue }
            best = (gap, index)
        }
        return best.map { footsteps[$0.index] }
    }

    private mutating func enqueue(_ item: Pending, output: (AnalysisOutput) -> Void) {
        if pending.count == Self.capacity { release(output: output, final: true, limit: 1) }
        pending.append(item)
    }

    /// Releases waiting items from the front once judged (all of them when `final`).
    private mutating func release(output: (AnalysisOutput) -> Void, final: Bool, limit: Int = .max) {
        var released = 0
        while released < limit, let item = pending.first {
            let kind: EventKind
            switch item {
            case let .settle(event): kind = event.kind
            case let .revise(revision): kind = revision.kind
            }
            guard let decision = decide(item.onsetFrame, kind: kind, final: final) else { return }
            pending.removeFirst()
            released += 1
            switch item {
            case let .settle(event):
                output(.revision(TypeRevision(settling: event, as: fused(event, decision))))
            case let .revise(revision):
                if let fused = fused(revision, decision) { output(.revision(fused)) }
            }
        }
    }

    private mutating func remember(_ event: AnalyzedEvent) {
        // A settled event was remembered when it was reported provisionally.
        if let index = recent.lastIndex(where: { $0.onsetFrame == event.onsetFrame }) {
            (recent[index].types, recent[index].confidence) = (event.typeProbabilities, event.confidence)
            recent[index].kind = event.kind
            recent[index].durationSeconds = event.duration
            return
        }
        if recent.count == Self.capacity { recent.removeFirst() }
        recent.append(
            Recent(
                onsetFrame: event.onsetFrame, kind: event.kind, types: event.typeProbabilities,
                confidence: event.confidence, durationSeconds: event.duration))
    }

    /// Keeps the confidence of the gait context's new label of a recent event.
    private mutating func relabel(_ revision: TypeRevision) {
        guard let index = recent.lastIndex(where: { $0.onsetFrame == revision.onsetFrame }) else { return }
        recent[index].confidence = revision.confidence
        recent[index].kind = revision.kind
    }

    /// Records one of the gait context's footsteps, or its new type.
    private mutating func rememberFootstep(_ onsetFrame: Int64, type: FootstepType, types: TypeProbabilities) {
        if let index = footsteps.lastIndex(where: { $0.onsetFrame == onsetFrame }) {
            footsteps[index].type = type
            return
        }
        if footsteps.count == Self.capacity { footsteps.removeFirst() }
        footsteps.append((onsetFrame, type, types))
    }

    /// What the decision makes of the event at `onsetFrame` labelled `kind`:
    /// the decision taken for it before if any; nil until its window has been
    /// heard. `final` (the end of the stream) decides with what has been
    /// heard: an unheard event is kept.
    private mutating func decide(_ onsetFrame: Int64, kind: EventKind, final: Bool = false) -> Decision? {
        let centre = Int((Double(onsetFrame) / Double(hopFrames)).rounded())
        // The decision waits for the whole window (nothing about the event is
        // decided before), so the queue's front is checked every hop without a
        // search through the recent events.
        if !final, centre + waitHops >= judged { return nil }
        let index = recent.lastIndex { $0.onsetFrame == onsetFrame }
        if let index, let decision = recent[index].decision { return decision }
        var decision: Decision?
        if centre + Self.reach < judged - Self.memoryHops {
            decision = .kept
        } else if centre + Self.reach < judged {
            // Before the end of the stream the early return above has waited for the whole window.
            let p = judge(onsetFrame, centre: centre, detection: index.map { recent[$0] }, kind: kind)
            let footstep = p >= trees.threshold
            decision = kind == .footstep ? (footstep ? .kept : .vetoed(p)) : (footstep ? .rescued(p) : .kept)
        } else if final {
            decision = .kept
        }
        if let index, let decision { recent[index].decision = decision }
        return decision
    }

    /// The network's highest probability within `reach` hops of `centre`
    /// (of those it has judged and still keeps).
    private func nearMaximum(_ centre: Int, reach: Int = Self.reach) -> Float {
        var best: Float = 0
        let first = max(0, centre - reach, judged - Self.memoryHops)
        let last = min(centre + reach, judged - 1)
        guard first <= last else { return 0 }
        for frame in first...last {
            best = max(best, probabilities[frame % Self.memoryHops])
        }
        return best
    }

    /// The decision's probability that the candidate at `onsetFrame` (hop
    /// `centre`) is a footstep: a detection labelled `kind`, as `detection`
    /// last had it, or (nil) one of the network's onsets.
    private mutating func judge(_ onsetFrame: Int64, centre: Int, detection: Recent?, kind: EventKind) -> Double {
        let footstep = detection != nil && kind == .footstep
        let confidence = detection?.confidence ?? 0
        features[0] = detection == nil ? 0 : 1
        features[1] = footstep ? 1 : 0
        features[2] = detection == nil ? 0 : footstep ? confidence : 1 - confidence
        features[3] = Double(nearMaximum(centre))
        features[4] = Double(nearMaximum(centre, reach: 2))
        features[5] = detection?.durationSeconds ?? 0
        formContext(of: onsetFrame)
        features[12] = FrameDecision.networkBeat(at: centre, horizon: beatHorizon) { hop in
            guard hop >= 0 && hop < judged else { return 0 }
            // A peak whose hops are all judged and still kept is in the ring; the last few are still open.
            let reach = FrameDecision.beatReach
            return hop + reach < judged && hop - reach >= judged - Self.memoryHops
                ? beatPeaks[hop % Self.memoryHops] : nearMaximum(hop, reach: reach)
        }
        return trees.probability(of: features)
    }

    /// Features 6–11 (`FrameDecision.featureNames`): the gait context's
    /// footsteps, the network's onsets and the detections within
    /// `FrameDecision.window` of `onsetFrame`.
    private mutating func formContext(of onsetFrame: Int64) {
        let window = FrameDecision.window
        let own = FrameDecision.selfSeconds
        func gap(_ frame: Int64) -> Double { Double(abs(frame - onsetFrame)) / sampleRate }
        var nearest = window
        var footstepCount = 0.0
        for footstep in footsteps {
            let g = gap(footstep.onsetFrame)
            guard g > own, g <= window else { continue }
            nearest = min(nearest, g)
            footstepCount += 1
        }
        var detectionCount = 0.0
        for event in recent {
            let g = gap(event.onsetFrame)
            if g > own, g <= window { detectionCount += 1 }
        }
        var onsetCounts = (strong: 0.0, sure: 0.0, all: 0.0)
        for onset in onsets {
            let g = gap(Int64(onset.hop * hopFrames))
            guard g > own, g <= window else { continue }
            onsetCounts.all += 1
            if onset.probability >= FrameDecision.strongOnset { onsetCounts.strong += 1 }
            if onset.probability >= FrameDecision.sureOnset { onsetCounts.sure += 1 }
        }
        features[6] = nearest
        features[7] = footstepCount
        features[8] = onsetCounts.strong
        features[9] = onsetCounts.sure
        features[10] = onsetCounts.all
        features[11] = detectionCount
    }

    private func types(of onsetFrame: Int64) -> TypeProbabilities {
        recent.last { $0.onsetFrame == onsetFrame }?.types ?? .uniform
    }

    /// A label as the network's decision changes it.
    private struct Label {
        var kind: EventKind
        var type: FootstepType
        var confidence: Double
        var footstepProbability: Double

        /// Rescues an `other` (as `type()`) or vetoes a footstep; anything else is kept.
        mutating func apply(_ decision: Decision, type rescuedType: () -> FootstepType) {
            switch decision {
            case let .rescued(p) where kind != .footstep:
                kind = .footstep
                type = rescuedType()
                footstepProbability = max(footstepProbability, p)
                confidence = footstepProbability
            case let .vetoed(p) where kind == .footstep:
                kind = .other
                type = .unknown
                footstepProbability = min(footstepProbability, p)
                confidence = 1 - footstepProbability
            case .kept, .rescued, .vetoed:
                break
            }
        }
    }

    private func fused(_ event: AnalyzedEvent, _ decision: Decision) -> AnalyzedEvent {
        var event = event
        var label = Label(
            kind: event.kind, type: event.type, confidence: event.confidence, footstepProbability: event.footstepProbability)
        label.apply(decision) { Self.likeliest(event.typeProbabilities) }
        (event.kind, event.type, event.confidence, event.footstepProbability) =
            (label.kind, label.type, label.confidence, label.footstepProbability)
        return event
    }

    /// `revision` with the network's decision applied; nil when that leaves
    /// nothing to report (a bout's new type for a footstep the network vetoed).
    private func fused(_ revision: TypeRevision, _ decision: Decision) -> TypeRevision? {
        var revision = revision
        if !revision.settles, case .vetoed = decision, revision.previousKind == .footstep {
            // The event was last reported with the fused label.
            revision.previousKind = .other
            revision.previousType = .unknown
        }
        var label = Label(
            kind: revision.kind, type: revision.type, confidence: revision.confidence,
            footstepProbability: revision.footstepProbability)
        label.apply(decision) { Self.likeliest(types(of: revision.onsetFrame)) }
        (revision.kind, revision.type, revision.confidence, revision.footstepProbability) =
            (label.kind, label.type, label.confidence, label.footstepProbability)
        return revision.settles || revision.changesLabel ? revision : nil
    }

    static func likeliest(_ types: TypeProbabilities) -> FootstepType {
        FootstepType.classified.max { types[$0] < types[$1] } ?? .heelStrike
    }
}
