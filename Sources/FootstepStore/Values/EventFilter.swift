import FootstepCore
import Foundation

/// Which events to list and how (see ``FootstepDatabase/events(_:)``).
public struct EventFilter: Sendable, Hashable {
    /// Only this session.
    public var sessionId: Int64?
    /// Onset at or after this time.
    public var from: Date?
    /// Onset strictly before this time.
    public var to: Date?
    /// Only this footstep type.
    public var type: FootstepType?
    /// Only this kind.
    public var kind: EventKind?
    /// Only events with at least this confidence.
    public var minConfidence: Double?
    /// Only events of this review state.
    public var review: ReviewState?
    /// Page size (clamped to 1…10,000).
    public var limit: Int
    /// Continue after this cursor (from the previous page's `nextCursor`).
    public var after: TimeCursor?
    /// Oldest first (default) or newest first.
    public var order: TimeOrder

    /// The largest page served.
    public static let maximumLimit = 10_000

    /// Creates a filter; all criteria are optional.
    public init(
        sessionId: Int64? = nil, from: Date? = nil, to: Date? = nil, type: FootstepType? = nil,
        kind: EventKind? = nil, minConfidence: Double? = nil, review: ReviewState? = nil, limit: Int = 100,
        after: TimeCursor? = nil, order: TimeOrder = .ascending
    ) {
        self.sessionId = sessionId
        self.from = from
        self.to = to
        self.type = type
        self.kind = kind
        self.minConfidence = minConfidence
        self.review = review
        self.limit = limit
        self.after = after
        self.order = order
    }
}
