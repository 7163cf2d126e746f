import FootstepCore
import Foundation

/// `POST /v1/reviews` (admin): a person's verdict on events, a bout or a time range.
///
/// Exactly one target: `events` (ids), `bout` (a bout id), or `from` and `to`
/// (ISO 8601; every event with its onset in `[from, to)`). `action` is
/// `confirm`, `reject` or `relabel` (with `type`, one of the four footstep
/// types). `reason` is optional ("the radio"). The reviewer is the peer the
/// socket's credentials name: never a field of the request.
public struct ReviewRequest: Codable, Sendable, Equatable {
    public var action: String
    public var type: FootstepType?
    public var events: [Int64]?
    public var bout: Int64?
    public var from: Date?
    public var to: Date?
    public var reason: String?

    public init(
        action: String, type: FootstepType? = nil, events: [Int64]? = nil, bout: Int64? = nil, from: Date? = nil,
        to: Date? = nil, reason: String? = nil
    ) {
        self.action = action
        self.type = type
        self.events = events
        self.bout = bout
        self.from = from
        self.to = to
        self.reason = reason
    }

    /// The actions a review can take.
    public static let actions = ["confirm", "reject", "relabel"]
}

/// The answer to a ``ReviewRequest``: the events it changed (one review each) and those already so.
public struct ReviewResponse: Codable, Sendable, Equatable {
    /// `confirmed` or `rejected`.
    public var verdict: ReviewVerdict
    /// Events with a new review, id order.
    public var reviewed: [Int64]
    /// Events that already had this verdict and label: nothing stored for them.
    public var unchanged: [Int64]
    /// The reviewer as the daemon's machine names the peer's uid.
    public var reviewer: String
    public var reviewerUid: Int64

    public init(verdict: ReviewVerdict, reviewed: [Int64], unchanged: [Int64], reviewer: String, reviewerUid: Int64) {
        self.verdict = verdict
        self.reviewed = reviewed
        self.unchanged = unchanged
        self.reviewer = reviewer
        self.reviewerUid = reviewerUid
    }

    enum CodingKeys: String, CodingKey {
        case verdict, reviewed, unchanged, reviewer
        case reviewerUid = "reviewer_uid"
    }
}
