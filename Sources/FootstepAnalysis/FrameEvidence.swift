import FootstepClassifier
import FootstepCore
import FootstepDSP

/// The frame step network's say on the event model's labels, after the gait
/// context: a detection called `other` becomes a footstep where the network
/// gives a step within 50 ms of its onset at least `rescue`, and a footstep
/// becomes `other` where it gives less than `veto`. With `add`, one of the
/// network's own onsets (``AddedSteps``) at least `add` with no detection
/// within 100 ms becomes a footstep of its own, reported as a settled event
/// once the network has heard it and every detection near it could have
/// been reported.
///
/// A model with `company` rescues or adds only an impact with one of the
/// gait context's own footsteps within that many seconds before or after
/// it (more than 50 ms away): a step the event model doubted has steps it
/// did not doubt near it, a distractor the network takes for a step mostly
/// does not. Such a rescue waits until every event within `company` after
/// it has been settled by the gait context (`settledDelay`), unless a
/// footstep before it is company; an added step always waits that long.
/// An added step takes the type of the nearest of those footsteps (a step
/// among heel strikes is one) and follows it: when the gait context names
/// that footstep's type again, a ``TypeRevision`` names the added step's
/// too. (The bout reviser comes after this stage: it types an added step
/// with the rest of its bout, `BoutRevisionStage`.) Its footstep probability and confidence are the network's; without
/// `company` its type is `unknown`.
///
/// The network hears a frame `lookahead` hops (0.3 s) after it, so a
/// settled event usually leaves the gait context before the network has
/// judged it. Live events stay fast: such an event goes out at once as
/// `.provisional` with its label, and once the network has heard it, a
/// ``TypeRevision`` that `settles` it follows with the fused label.
/// Revisions wait in order until the network has heard their event; a
/// provisional report and levels pass straight through. An event the
/// network changed keeps that change in its later revisions (the gait
/// context's): a vetoed footstep stays `other`.
///
/// A rescued footstep's type is the event model's likeliest of the four;
/// its footstep probability is raised to the network's. A vetoed footstep's
/// footstep probability is lowered to the network's.
///
/// With a learned decision (``FrameDecision``) the trees judge instead: every
/// detection, and every network onset at least `FrameDecision.onsetFloor`
/// with no detection within 100 ms, waits until everything within
/// `FrameDecision.window` after it has been settled and judged, and is a
/// footstep where the trees' probability is at least their threshold (a
/// detection is rescued or vetoed as above, with the trees' probability in
/// place of the network's; an added step follows the nearest footstep
/// within the window as above, or with none there the nearest one
/// remembered: the walker's type). With a second look
/// (``FrameDecision/hasSecondLook``) the trees first look at each candidate
/// as soon as its window has been heard, and judge it `FrameDecision.window`
/// later, once every candidate within the window has had its first look: a
/// step among steps the first look took for steps is more likely one.
///
/// Storage is reserved in `init`; `process` and `accept` do not allocate.
struct FrameEvidence: ~Copyable {
    /// How far from an onset (hops, each side) the network's probability counts.
    static let reach = 5
    /// Hops of probabilities kept (20.48 s): more than the longest a decision comes after its event
    /// (`maximumSettlementDelay` for the longest `settledDelay`, 4.65 s, is 14.9 s).
    static let memoryHops = 2048
    static let capacity = 256
    /// The longest look-ahead a model may have (hops: `FootstepModel.validate`).
    static let maximumLookahead = FootstepModel.FrameNetwork.maximumLookahead
    /// The longest time, seconds, after its onset an added step is
    /// reported, or an event is judged, when the gait context settles an
    /// event at most `settledDelay` after its onset: the network's
    /// look-ahead, `reach` (an onset's `AddedSteps.radius` is less), two
    /// hops, the wait for company (at most `maximumCompany`; a decision's
    /// window is less) and a second look's `FrameDecision.window`.
    static func maximumDelay(settledDelay: Double) -> Double {
        Double(maximumLookahead + reach + 2) / 100 + FootstepModel.FrameNetwork.maximumCompany + FrameDecision.window
            + settledDelay
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
    /// reported by the gait context, its length and what the network made of it.
    private struct Recent {
        var onsetFrame: Int64
        var kind: EventKind
        var types: TypeProbabilities
        var confidence: Double
        var durationSeconds: Double
        var decision: Decision?
        /// The network's probability for a rescue waiting for its company.
        var awaitingCompany: Double?
    }

    private var network: FrameStepNetwork
    /// The learned decision, when the model has one (the rules below are then unused).
    private var trees: FrameDecision?
    /// Its features, formed here for each candidate (`FrameDecision.secondFeatureNames`;
    /// the first look reads the first `featureNames.count`).
    private var features: [Double]
    /// With a second look: the first look of each recent candidate, by the
    /// onset frame it is known by, at `time` (seconds; a network onset's hop).
    private var firstLooks: [(onsetFrame: Int64, time: Double, probability: Double)] = []
    /// The latest onset frame of a detection, and hop of a network onset, given a first look.
    private var lookedDetection: Int64 = -1
    private var lookedOnset = -1
    /// The times of the first-look footsteps near a candidate, for `FrameDecision.beatMiss`.
    private var beatTimes: [Double] = []
    /// Hops after an onset until every detection and network onset within
    /// the window could have been reported: its first look is taken then.
    private let firstLookHops: Int
    /// `FrameDecision.window` in hops: how far after a candidate `network_beat` looks.
    private let beatHorizon: Int
    private let rescue: Float
    private let veto: Float
    /// `company` in frames (nil: a rescue needs none).
    private let companyFrames: Int64?
    /// A footstep this close (50 ms) is the impact itself, not company.
    private let minimumCompanyGap: Int64
    /// A rescue without company before it, and an added step, wait until the
    /// network has judged this many hops after the onset: every event in
    /// `company` after it has been settled by then.
    private let companyWaitHops: Int
    private let hopFrames: Int
    private let sampleRate: Double
    /// The network's probability of each of the last `memoryHops` frames (`frame % memoryHops`).
    private var probabilities: [Float]
    /// Frames judged so far (all frames before this one have a probability).
    private var judged = 0
    /// With a decision, the network's highest probability within
    /// `FrameDecision.beatReach` hops of each of the last `memoryHops` frames
    /// (`frame % memoryHops`), written once the hops after the frame are
    /// judged: what `networkBeat` reads, 364 values a candidate.
    private var beatPeaks: [Float]
    private var pending: [Pending] = []
    /// Recent events, in the order they came.
    private var recent: [Recent] = []
    /// The gait context's recent footsteps (as settled, with their later types).
    private var footsteps: [(onsetFrame: Int64, type: FootstepType, types: TypeProbabilities)] = []
    /// The network's onsets that may become footsteps (with `add`).
    private var added: AddedSteps?
    /// Recent added steps, each with the footstep whose type it follows.
    private var followers: [Follower] = []
    /// The network's recent onsets (`AddedSteps`' rule, detected or not), which a decision counts.
    private var onsets: [(hop: Int, probability: Float)] = []
    /// `sameStepSeconds` in frames.
    private let sameStepFrames: Int64

    /// - Parameters:
    ///   - decision: the model's learned decision (`FootstepModelClassifier.frameDecision`);
    ///     nil: `model`'s rules decide.
    ///   - hopFrames: the detector's hop (10 ms).
    ///   - settledDelay: the longest time, seconds, from an onset until the
    ///     gait context has settled that event (the detector's report delay
    ///     and the hold): every detection near an onset, and every footstep
    ///     that could be its company, has been seen by then.
    ///   - calibrationOffset: dBFS → dB SPL, for an added step's exposure.
    init(
        model: FootstepModel.FrameNetwork, decision: FrameDecision?, hopFrames: Int, sampleRate: Double,
        settledDelay: Double, calibrationOffset: Double
    ) {
        network = FrameStepNetwork(model: model)
        trees = decision
        features = [Double](repeating: 0, count: FrameDecision.secondFeatureNames.count)
        rescue = Float(model.rescue)
        veto = Float(model.veto)
        self.hopFrames = hopFrames
        self.sampleRate = sampleRate
        // A decision looks at the window around a candidate, and types an added step from it.
        let company = decision == nil ? model.company : FrameDecision.window
        companyFrames = company.map { Int64(($0 * sampleRate).rounded()) }
        minimumCompanyGap = Int64((0.05 * sampleRate).rounded())
        sameStepFrames = Int64((Self.sameStepSeconds * sampleRate).rounded())
        let hopsPerSecond = sampleRate / Double(hopFrames)
        // A decision also counts the network's onsets in the window: each is
        // known `AddedSteps.radius` hops after its frame.
        firstLookHops = Int((((company ?? 0) + settledDelay) * hopsPerSecond).rounded(.up))
            + (decision == nil ? 0 : AddedSteps.radius + 1)
        beatHorizon = Int((FrameDecision.window * hopsPerSecond).rounded())
        // A second look waits until every candidate within the window after has had its first.
        companyWaitHops = firstLookHops
            + (decision?.hasSecondLook == true ? Int((FrameDecision.window * hopsPerSecond).rounded(.up)) + 1 : 0)
        let onsetThreshold = decision == nil ? model.add : Double(FrameDecision.onsetFloor)
        added = onsetThreshold.map { [hopFrames] in
            AddedSteps(threshold: $0, hopFrames: hopFrames, sampleRate: sampleRate, calibrationOffset: calibrationOffset)
        }
        probabilities = [Float](repeating: 0, count: Self.memoryHops)
        beatPeaks = [Float](repeating: 0, count: decision == nil ? 0 : Self.memoryHops)
        pending.reserveCapacity(Self.capacity)
        recent.reserveCapacity(Self.capacity)
        footsteps.reserveCapacity(Self.capacity)
        followers.reserveCapacity(Self.capacity)
        onsets.reserveCapacity(Self.capacity)
        firstLooks.reserveCapacity(Self.capacity)
        beatTimes.reserveCapacity(Self.capacity)
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
            if !beatPeaks.isEmpty, settled >= 0 {
                beatPeaks[settled % Self.memoryHops] = nearMaximum(settled, reach: FrameDecision.beatReach)
            }
        }
        if var steps = added.take() {
            steps.record(levels)
            let frame = frame - AddedSteps.radius
            if frame >= 0, let onset = steps.onset(frame: frame, probabilities: probabilities, background: background) {
                if trees != nil {
                    if onsets.count == Self.capacity { onsets.removeFirst() }
                    onsets.append((onset.hop, Float(onset.probability)))
                }
                if !detected(near: onset.impact.onsetFrame) { steps.keep(onset) }
            }
            added = steps
        }
        if trees?.hasSecondLook == true { takeFirstLooks() }
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

    /// Reports the waiting onsets the network has heard long enough (all when
    /// `final`) as footsteps where no detection is near and, with `company`,
    /// a footstep is.
    private mutating func releaseAdded(output: (AnalysisOutput) -> Void, final: Bool) {
        guard var steps = added.take() else { return }
        while let first = steps.candidates.first, final || first.hop + companyWaitHops < judged {
            var candidate = steps.removeFirst()
            let onsetFrame = candidate.impact.onsetFrame
            guard !detected(near: onsetFrame) else { continue }
            var company = nearestFootstep(to: onsetFrame)
            if let threshold = trees?.threshold {
                candidate.probability = judge(onsetFrame, centre: candidate.hop, detection: nil, kind: .other)
                guard candidate.probability >= threshold else { continue }
                // The walker's type: the nearest footstep still remembered when none is within the window.
                company = company ?? nearestFootstep(to: onsetFrame, within: .max)
            } else {
                guard company != nil || companyFrames == nil else { continue }
            }
            let classification = Classification(
                kind: .footstep, type: company?.type ?? .unknown, confidence: candidate.probability,
                intensity: Intensity(levelAboveBackground: candidate.impact.lafMax - candidate.impact.backgroundLAF),
                footstepProbability: candidate.probability, typeProbabilities: company?.types ?? .uniform)
            output(.event(AnalyzedEvent(candidate.impact, classification: classification, sampleRate: sampleRate)))
            if let company {
                if followers.count == Self.capacity { followers.removeFirst() }
                followers.append(
                    Follower(
                        onsetFrame: onsetFrame, leader: company.onsetFrame, type: company.type,
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

    /// The gait context's footstep nearest `onsetFrame` that is company for
    /// it (more than 50 ms and at most `company`, or `within` frames, away);
    /// nil without `company`.
    private func nearestFootstep(to onsetFrame: Int64, within: Int64? = nil)
        -> (onsetFrame: Int64, type: FootstepType, types: TypeProbabilities)?
    {
        guard let companyFrames = within ?? companyFrames else { return nil }
        var best: (gap: Int64, index: Int)?
        for (index, footstep) in footsteps.enumerated() {
            let gap = abs(footstep.onsetFrame - onsetFrame)
            guard gap > minimumCompanyGap, gap <= companyFrames, gap < best?.gap ?? .max else { continue }
            best = (gap, index)
        }
        return best.map { footsteps[$0.index] }
    }

    private mutating func enqueue(_ item: Pending, output: (AnalysisOutput) -> Void) {
        if pending.count == Self.capacity { release(output: output, final: true, limit: 1) }
        pending.append(item)
    }

    /// Releases waiting items from the front while the network has heard them (all of them when `final`).
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

    /// What the network makes of the event at `onsetFrame` labelled `kind`:
    /// the decision taken for it before if any; nil while the network has not
    /// heard it or a rescue waits for its company. `final` (the end of the
    /// stream) decides with what has been heard: an unheard event is kept.
    private mutating func decide(_ onsetFrame: Int64, kind: EventKind, final: Bool = false) -> Decision? {
        let centre = Int((Double(onsetFrame) / Double(hopFrames)).rounded())
        // The learned decision waits for the whole window (nothing about the
        // event is decided before), so the queue's front is checked every hop
        // without a search through the recent events.
        if trees != nil, !final, centre + companyWaitHops >= judged { return nil }
        let index = recent.lastIndex { $0.onsetFrame == onsetFrame }
        if let index, let decision = recent[index].decision { return decision }
        var decision: Decision?
        if trees != nil {
            if centre + Self.reach < judged - Self.memoryHops {
                decision = .kept
            } else if centre + Self.reach < judged {
                // Before the end of the stream the early return above has waited for the whole window.
                let p = judge(onsetFrame, centre: centre, detection: index.map { recent[$0] }, kind: kind)
                let footstep = p >= trees?.threshold ?? 1
                decision = kind == .footstep ? (footstep ? .kept : .vetoed(p)) : (footstep ? .rescued(p) : .kept)
            } else if final {
                decision = .kept
            }
        } else if let index, let p = recent[index].awaitingCompany {
            decision = companion(onsetFrame, p: p, centre: centre, final: final)
        } else if centre + Self.reach >= judged {
            decision = final ? .kept : nil
        } else if centre + Self.reach < judged - Self.memoryHops {
            decision = .kept
        } else {
            let p = nearMaximum(centre)
            if kind == .footstep {
                decision = p < veto ? .vetoed(Double(p)) : .kept
            } else if p < rescue {
                decision = .kept
            } else {
                decision = companion(onsetFrame, p: Double(p), centre: centre, final: final)
                if decision == nil, let index { recent[index].awaitingCompany = Double(p) }
            }
        }
        if let index, let decision { recent[index].decision = decision }
        return decision
    }

    /// A rescue at `p` for the impact at `onsetFrame`: rescued with company
    /// (or when none is needed), kept once every event that could be company
    /// has been settled without any (or at `final`), nil until then.
    private func companion(_ onsetFrame: Int64, p: Double, centre: Int, final: Bool) -> Decision? {
        guard companyFrames != nil, nearestFootstep(to: onsetFrame) == nil else { return .rescued(p) }
        return final || centre + companyWaitHops < judged ? .kept : nil
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

    /// The learned decision's probability that the candidate at `onsetFrame`
    /// (hop `centre`) is a footstep: a detection labelled `kind`, as
    /// `detection` last had it, or (nil) one of the network's onsets.
    /// With a second look, the second look's probability: the candidate's
    /// first look (`firstLooks`, or taken now) with the first looks around it.
    private mutating func judge(_ onsetFrame: Int64, centre: Int, detection: Recent?, kind: EventKind) -> Double {
        let first = firstLook(onsetFrame, centre: centre, detection: detection, kind: kind)
        guard var trees = self.trees.take() else { return 0 }
        defer { self.trees = trees }
        guard trees.hasSecondLook else { return first }
        let time = detection == nil ? Double(centre * hopFrames) / sampleRate : Double(onsetFrame) / sampleRate
        let own = firstLooks.last { $0.onsetFrame == onsetFrame }?.probability ?? first
        formSecondLook(at: time, own: own)
        return trees.secondProbability(of: features)
    }

    /// The first look at a candidate (`judge`'s arguments), its features left in `features`.
    private mutating func firstLook(_ onsetFrame: Int64, centre: Int, detection: Recent?, kind: EventKind) -> Double {
        guard var trees = self.trees.take() else { return 0 }
        defer { self.trees = trees }
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

    /// Takes the first look at every detection and network onset whose
    /// window has been heard (`firstLookHops`), in onset order, into `firstLooks`.
    private mutating func takeFirstLooks() {
        var start = recent.endIndex
        while start > recent.startIndex, recent[start - 1].onsetFrame > lookedDetection { start -= 1 }
        for index in start..<recent.endIndex {
            let event = recent[index]
            let centre = Int((Double(event.onsetFrame) / Double(hopFrames)).rounded())
            guard centre + firstLookHops < judged else { break }
            let p = firstLook(event.onsetFrame, centre: centre, detection: event, kind: event.kind)
            keepFirstLook(event.onsetFrame, time: Double(event.onsetFrame) / sampleRate, p)
            lookedDetection = event.onsetFrame
        }
        guard let steps = added else { return }
        for candidate in steps.candidates where candidate.hop > lookedOnset {
            guard candidate.hop + firstLookHops < judged else { break }
            lookedOnset = candidate.hop
            let onsetFrame = candidate.impact.onsetFrame
            guard !detected(near: onsetFrame) else { continue }
            let p = firstLook(onsetFrame, centre: candidate.hop, detection: nil, kind: .other)
            keepFirstLook(onsetFrame, time: Double(candidate.hop * hopFrames) / sampleRate, p)
        }
    }

    private mutating func keepFirstLook(_ onsetFrame: Int64, time: Double, _ probability: Double) {
        if firstLooks.count == Self.capacity { firstLooks.removeFirst() }
        firstLooks.append((onsetFrame, time, probability))
    }

    /// The features after `FrameDecision.featureNames` (`secondFeatureNames`) of the candidate
    /// at `time` whose first look is `own`: the first looks of the other
    /// candidates within `FrameDecision.window` of it.
    private mutating func formSecondLook(at time: Double, own: Double) {
        var count = 0.0
        var sum = 0.0
        beatTimes.removeAll(keepingCapacity: true)
        for look in firstLooks {
            let gap = abs(look.time - time)
            guard gap > FrameDecision.selfSeconds, gap <= FrameDecision.window else { continue }
            count += 1
            sum += look.probability
            if look.probability >= FrameDecision.firstFootstep { beatTimes.append(look.time) }
        }
        let base = FrameDecision.featureNames.count
        features[base] = own
        features[base + 1] = Double(beatTimes.count)
        features[base + 2] = count > 0 ? sum / count : 0
        features[base + 3] = FrameDecision.beatMiss(time, beatTimes)
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
