import FootstepCore
import Foundation

/// The person a review names: the uid from the control socket's peer credentials
/// and the user name the daemon's machine gives it.
public struct Reviewer: Sendable, Hashable, Codable {
    public var uid: Int64
    public var name: String

    public init(uid: Int64, name: String) {
        self.uid = uid
        self.name = name
    }
}

/// Which events a review covers (``FootstepDatabase/review(_:_:by:reason:at:)``).
public enum ReviewTarget: Sendable, Hashable {
    /// These events (every id must be stored).
    case events([Int64])
    /// Every step of a gait bout.
    case bout(Int64)
    /// Every event with its onset in `[from, to)`: "everything from 23:10 to 23:40 is the radio".
    case range(from: Date, to: Date)
}

/// What a review says of its events.
public enum ReviewAction: Sendable, Hashable {
    /// They are what their labels say.
    case confirm
    /// They are not footsteps (not what their labels say).
    case reject
    /// They are footsteps of this type (one of ``FootstepType/classified``): confirmed, with the new label.
    case relabel(FootstepType)

    /// The verdict the reviewed events get.
    public var verdict: ReviewVerdict { self == .reject ? .rejected : .confirmed }
}

/// What a review did.
public struct ReviewOutcome: Sendable, Hashable {
    /// The reviews stored, one per event that changed, in event order.
    public var reviews: [TypeRevisionRecord]
    /// The events already so (same verdict, same label): nothing stored for them.
    public var unchangedEventIds: [Int64]

    public init(reviews: [TypeRevisionRecord], unchangedEventIds: [Int64]) {
        self.reviews = reviews
        self.unchangedEventIds = unchangedEventIds
    }
}
