import FootstepCore

/// A footstep's type named again once its whole bout has been heard
/// (`BoutReviser`). It revises the event that was reported earlier with the
/// same `onsetFrame`; the event's kind does not change.
public struct TypeRevision: Sendable, Equatable, Codable {
    /// The revised event's onset frame (its identity within the stream).
    public var onsetFrame: Int64
    /// Seconds from the start of the stream to that onset.
    public var onsetSeconds: Double
    /// The type the event was reported with.
    public var previousType: FootstepType
    /// The type its bout gives it.
    public var type: FootstepType
    /// The label's confidence: the classifier's footstep probability, as for the live type.
    public var confidence: Double

    public init(onsetFrame: Int64, onsetSeconds: Double, previousType: FootstepType, type: FootstepType, confidence: Double) {
        self.onsetFrame = onsetFrame
        self.onsetSeconds = onsetSeconds
        self.previousType = previousType
        self.type = type
        self.confidence = confidence
    }
}

extension AnalyzedEvent {
    /// Takes `revision`'s type and confidence.
    public mutating func apply(_ revision: TypeRevision) {
        measurements.type = revision.type
        measurements.confidence = revision.confidence
    }
}
