import FootstepCore

/// A new type for a stored footstep, named by the event's place in its session
/// (the analysis knows onset frames, not row ids), for
/// ``FootstepDatabase/reviseTypes(_:sessionId:reason:at:)``.
public struct NewTypeRevision: Sendable, Hashable {
    /// The event's `frameOffset` (its onset in the session's sample clock).
    public var frameOffset: Int64
    /// The type it has from now on.
    public var type: FootstepType
    /// The new type's confidence, 0…1.
    public var confidence: Double

    public init(frameOffset: Int64, type: FootstepType, confidence: Double) {
        self.frameOffset = frameOffset
        self.type = type
        self.confidence = confidence
    }
}
