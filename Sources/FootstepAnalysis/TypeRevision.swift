import FootstepCore

/// A label named again for an event reported earlier with the same
/// `onsetFrame`. Two stages make them:
///
/// - the gait context (`GaitContextRefiner`) reports an event whose label its
///   neighbours may still change at once, *provisionally*, with the
///   classifier's label, and settles it with a revision once they have been
///   heard (`settles`; the label may be the same, or another kind: an `other`
///   on the beat of a walk becomes a footstep, a lone unsure footstep `other`);
/// - the bout reviser (`BoutReviser`) names a footstep's type again when its
///   whole bout has been heard (the kind does not change).
public struct TypeRevision: Sendable, Equatable, Codable {
    /// The revised event's onset frame (its identity within the stream).
    public var onsetFrame: Int64
    /// Seconds from the start of the stream to that onset.
    public var onsetSeconds: Double
    /// The kind the event was reported with.
    public var previousKind: EventKind
    /// The type the event was reported with (`unknown` for an `other`).
    public var previousType: FootstepType
    /// The kind it has from now on.
    public var kind: EventKind
    /// The type it has from now on (`unknown` for an `other`).
    public var type: FootstepType
    /// The label's confidence: for a footstep the classifier's footstep
    /// probability (as for the live label), for an `other` one minus it.
    public var confidence: Double
    /// The event's footstep probability from now on (the gait context raises
    /// it for an impact its rhythm makes a footstep).
    public var footstepProbability: Double
    /// True when this is the gait context's final label for an event it
    /// reported provisionally (sent even when the label stays the same).
    public var settles: Bool

    public init(
        onsetFrame: Int64, onsetSeconds: Double, previousKind: EventKind = .footstep, previousType: FootstepType,
        kind: EventKind = .footstep, type: FootstepType, confidence: Double, footstepProbability: Double? = nil,
        settles: Bool = false
    ) {
        self.onsetFrame = onsetFrame
        self.onsetSeconds = onsetSeconds
        self.previousKind = previousKind
        self.previousType = previousType
        self.kind = kind
        self.type = type
        self.confidence = confidence
        self.footstepProbability = footstepProbability ?? confidence
        self.settles = settles
    }

    /// The gait context's final label for `reported`, reported provisionally
    /// earlier: `settled`'s (an `other` has type `unknown`, as the store requires).
    init(settling reported: AnalyzedEvent, as settled: AnalyzedEvent) {
        self.init(
            onsetFrame: settled.onsetFrame, onsetSeconds: settled.onsetSeconds, previousKind: reported.kind,
            previousType: reported.kind == .footstep ? reported.type : .unknown, kind: settled.kind,
            type: settled.kind == .footstep ? settled.type : .unknown, confidence: settled.confidence,
            footstepProbability: settled.footstepProbability, settles: true)
    }

    /// Whether the kind or the type differs from the reported one.
    public var changesLabel: Bool { kind != previousKind || type != previousType }
}

extension AnalyzedEvent {
    /// Takes `revision`'s label and footstep probability.
    public mutating func apply(_ revision: TypeRevision) {
        measurements.kind = revision.kind
        measurements.type = revision.type
        measurements.confidence = revision.confidence
        footstepProbability = revision.footstepProbability
    }
}
