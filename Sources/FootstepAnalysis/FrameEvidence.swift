import FootstepClassifier
import FootstepCore
import FootstepDSP

/// The frame step network's say on the event model's labels, after the gait
/// context: a detection called `other` becomes a footstep where the network
/// gives a step within 50 ms of its onset at least `rescue`, and a footstep
/// becomes `other` where it gives less than `veto`.
///
/// The network hears a frame `lookahead` hops (0.3 s) after it, so a
/// settled event usually leaves the gait context before the network has
/// judged it. Live events stay fast: such an event goes out at once as
/// `.provisional` with its label, and once the network has heard it, a
/// ``TypeRevision`` that `settles` it follows with the fused label.
/// Revisions wait in order until the network has heard their event; a
/// provisional report and levels pass straight through. An event the
/// network changed keeps that change in its later revisions (the bout
/// reviser's new types): a vetoed footstep stays `other`.
///
/// A rescued footstep's type is the event model's likeliest of the four;
/// its footstep probability is raised to the network's. A vetoed footstep's
/// footstep probability is lowered to the network's.
///
/// Storage is reserved in `init`; `process` and `accept` do not allocate.
struct FrameEvidence: ~Copyable {
    /// How far from an onset (hops, each side) the network's probability counts.
    static let reach = 5
    /// Hops of probabilities kept (10.24 s): more than the longest a settlement comes after its event.
    static let memoryHops = 1024
    static let capacity = 256
    /// The longest look-ahead a model may have (hops: `FootstepModel.validate`).
    static let maximumLookahead = FootstepModel.FrameNetwork.maximumLookahead
    /// The longest time, seconds, after its onset an event waits for the
    /// network: its look-ahead and `reach`, and a hop.
    static let maximumDelay = Double(maximumLookahead + reach + 1) / 100

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

    private var picture: FramePicture
    private var network: FrameStepNetwork
    private let rescue: Float
    private let veto: Float
    private let hopFrames: Int
    /// The network's probability of each of the last `memoryHops` frames (`frame % memoryHops`).
    private var probabilities: [Float]
    /// Frames judged so far (all frames before this one have a probability).
    private var judged = 0
    private var pending: [Pending] = []
    /// Recent events' type probabilities and what the network made of them, by onset frame.
    private var recent: [(onsetFrame: Int64, types: TypeProbabilities, decision: Decision?)] = []

    init(model: FootstepModel.FrameNetwork, sampleRate: Double) throws(DSPError) {
        picture = try FramePicture(sampleRate: sampleRate)
        network = FrameStepNetwork(model: model)
        rescue = Float(model.rescue)
        veto = Float(model.veto)
        hopFrames = picture.hopFrames
        probabilities = [Float](repeating: 0, count: Self.memoryHops)
        pending.reserveCapacity(Self.capacity)
        recent.reserveCapacity(Self.capacity)
    }

    /// Runs the network on one hop, then releases what it has now heard.
    mutating func process(hop: UnsafeBufferPointer<Float>, output: (AnalysisOutput) -> Void) {
        let probability = network.process(picture.process(hop))
        let frame = network.hops - 1 - network.lookahead
        if frame >= 0 {
            probabilities[frame % Self.memoryHops] = probability
            judged = frame + 1
        }
        release(output: output, final: false)
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
            if pending.isEmpty, let decision = decide(event.onsetFrame, kind: event.kind) {
                output(.event(fused(event, decision)))
            } else {
                output(.provisional(event))
                enqueue(.settle(event), output: output)
            }
        case let .revision(revision):
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
            guard let decision = decide(item.onsetFrame, kind: kind) ?? (final ? .kept : nil) else { return }
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
        if recent.count == Self.capacity { recent.removeFirst() }
        recent.append((event.onsetFrame, event.typeProbabilities, nil))
    }

    /// What the network makes of the event at `onsetFrame` labelled `kind`:
    /// the decision taken for it before if any, nil while the network has not
    /// heard it.
    private mutating func decide(_ onsetFrame: Int64, kind: EventKind) -> Decision? {
        let index = recent.lastIndex { $0.onsetFrame == onsetFrame }
        if let index, let decision = recent[index].decision { return decision }
        let centre = Int((Double(onsetFrame) / Double(hopFrames)).rounded())
        guard centre + Self.reach < judged else { return nil }
        let decision: Decision
        if centre + Self.reach < judged - Self.memoryHops {
            decision = .kept
        } else {
            let p = nearMaximum(centre)
            if kind == .footstep {
                decision = p < veto ? .vetoed(Double(p)) : .kept
            } else {
                decision = p >= rescue ? .rescued(Double(p)) : .kept
            }
        }
        if let index { recent[index].decision = decision }
        return decision
    }

    /// The network's highest probability within `reach` hops of `centre`.
    private func nearMaximum(_ centre: Int) -> Float {
        var best: Float = 0
        for frame in max(0, centre - Self.reach, judged - Self.memoryHops)...(centre + Self.reach) {
            best = max(best, probabilities[frame % Self.memoryHops])
        }
        return best
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
