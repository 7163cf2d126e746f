import FootstepCore

/// A new label for a stored event, named by the event's place in its session
/// (the analysis knows onset frames, not row ids), for
/// ``FootstepDatabase/reviseTypes(_:sessionId:reason:at:)``.
public struct NewTypeRevision: Sendable, Hashable {
    /// The event's `frameOffset` (its onset in the session's sample clock).
    public var frameOffset: Int64
    /// The kind it has from now on.
    public var kind: EventKind
    /// The type it has from now on (`unknown` for an `other`).
    public var type: FootstepType
    /// The new label's confidence, 0…1.
    public var confidence: Double
    /// Who revised it and why; nil: the reason the whole call gives.
    public var reason: String?

    public init(
        frameOffset: Int64, kind: EventKind = .footstep, type: FootstepType, confidence: Double, reason: String? = nil
    ) {
        self.frameOffset = frameOffset
        self.kind = kind
        self.type = type
        self.confidence = confidence
        self.reason = reason
    }
}
