import Foundation

/// One sensor's event chain as the collector receives it.
///
/// Each event's `previous_hash` must be the hash of the event before it, or be bridged by a deletion recorded in
/// the chain (a tombstone). Events may arrive out of order: a message in flight when the broker died is delivered
/// again after later ones. So an event that does not follow the head is *held* (it is stored, not yet verified)
/// until the events before it arrive. Only a hole still open `hold` after it opened is declared a break; the
/// chain then goes on from the first held event.
///
/// It decides; the fleet store keeps its state (``State``) with the sensor and the held events in its event table.
public struct ChainVerifier: Sendable, Equatable {
    /// What is kept between messages.
    public struct State: Sendable, Equatable {
        /// The hash of the last verified event (nil before the first).
        public var head: String?
        /// Its id.
        public var lastEventId: Int64
        /// The first event the chain was verified from (1 when it was received from the genesis).
        public var verifiedFrom: Int64?
        /// Since when an event after the head has been waiting for the events before it (nil: no hole).
        public var holeSince: Date?

        public init(head: String? = nil, lastEventId: Int64 = 0, verifiedFrom: Int64? = nil, holeSince: Date? = nil) {
            self.head = head
            self.lastEventId = lastEventId
            self.verifiedFrom = verifiedFrom
            self.holeSince = holeSince
        }
    }

    /// An event as the chain sees it.
    public struct Link: Sendable, Equatable {
        public var id: Int64
        public var hash: String
        public var previousHash: String

        public init(id: Int64, hash: String, previousHash: String) {
            self.id = id
            self.hash = hash
            self.previousHash = previousHash
        }
    }

    /// A deletion recorded in the chain: the event before the deleted ones and the last deleted one.
    public struct Bridge: Sendable, Hashable {
        public var previousHash: String
        public var lastHash: String

        public init(previousHash: String, lastHash: String) {
            self.previousHash = previousHash
            self.lastHash = lastHash
        }
    }

    /// What verifying did to one event.
    public enum Outcome: Sendable, Equatable {
        /// It follows the head (or starts the chain at the genesis).
        case follows(Int64)
        /// The first event of a sensor that had stored events before: verified from here on.
        case startsHere(Int64)
        /// A tombstone spans the events between the head and it: they were deleted on the sensor.
        case bridged(Int64, Bridge)
        /// The hole before it stayed open for `hold`: events between are missing or altered. Verified from it on.
        case breaks(Int64, expected: String, found: String)
    }

    /// The hash before a sensor's first event (footstepd's `EventHasher.genesisHash`).
    public static let genesis = String(repeating: "0", count: 64)

    public private(set) var state: State
    /// How long a hole may wait for the events that fill it.
    public let hold: TimeInterval

    public init(state: State = State(), hold: TimeInterval) {
        self.state = state
        self.hold = hold
    }

    /// Whether the event `id` is at or before the head: a redelivery, or one that came after its hole was declared.
    public func isBehind(_ id: Int64) -> Bool { id <= state.lastEventId }

    /// Verifies the held events (the stored events after the head, ascending by id) as far as they go.
    ///
    /// - Parameters:
    ///   - held: Every stored event whose id is above ``State/lastEventId``, ascending.
    ///   - bridges: The sensor's deletions.
    ///   - now: The collector's clock, for the hole's age.
    /// - Returns: What became of each event verified, in order. Events after an open hole stay held.
    public mutating func advance(over held: [Link], bridges: Set<Bridge>, now: Date) -> [Outcome] {
        var outcomes: [Outcome] = []
        for link in held where link.id > state.lastEventId {
            guard let outcome = verdict(on: link, bridges: bridges, now: now) else { break }
            outcomes.append(outcome)
            if case .startsHere = outcome { state.verifiedFrom = link.id }
            if case .follows = outcome, state.head == nil { state.verifiedFrom = link.id }
            state.head = link.hash
            state.lastEventId = link.id
            state.holeSince = nil
        }
        if state.holeSince == nil, held.contains(where: { $0.id > state.lastEventId }) { state.holeSince = now }
        return outcomes
    }

    /// The event's outcome, or nil while it waits for the hole before it to fill.
    private func verdict(on link: Link, bridges: Set<Bridge>, now: Date) -> Outcome? {
        guard let head = state.head else {
            return link.previousHash == Self.genesis ? .follows(link.id) : .startsHere(link.id)
        }
        if link.previousHash == head { return .follows(link.id) }
        let bridge = Bridge(previousHash: head, lastHash: link.previousHash)
        if bridges.contains(bridge) { return .bridged(link.id, bridge) }
        if now.timeIntervalSince(state.holeSince ?? now) >= hold {
            return .breaks(link.id, expected: head, found: link.previousHash)
        }
        return nil
    }

    /// Whether `links` (the events between a break's last verified event and the event that broke, ascending) lead
    /// from `expected` to `found`: the missing events arrived after the break was declared.
    public static func fills(_ links: [Link], from expected: String, to found: String) -> Bool {
        var hash = expected
        for link in links {
            guard link.previousHash == hash else { return false }
            hash = link.hash
        }
        return hash == found
    }
}
