/// One sensor's event chain as the collector receives it: each event's `previous_hash` must be the hash of the
/// event received before it, or be bridged by a deletion recorded in the chain (a tombstone). It decides; the
/// fleet store keeps its state (``State``) with the sensor.
public struct ChainVerifier: Sendable, Equatable {
    /// What is kept between events.
    public struct State: Sendable, Equatable {
        /// The hash of the last event received (nil before the first).
        public var head: String?
        /// Its id.
        public var lastEventId: Int64
        /// The first event the chain was verified from (1 when it was received from the genesis).
        public var verifiedFrom: Int64?

        public init(head: String? = nil, lastEventId: Int64 = 0, verifiedFrom: Int64? = nil) {
            self.head = head
            self.lastEventId = lastEventId
            self.verifiedFrom = verifiedFrom
        }
    }

    /// What an event does to the chain.
    public enum Verdict: Sendable, Equatable {
        /// It follows the last event (or starts the chain at the genesis).
        case follows
        /// The first event received from a sensor that had stored events before: verified from here on.
        case startsHere
        /// Already received (a redelivery): nothing to verify.
        case duplicate
        /// It does not follow: events between are missing or altered, unless a tombstone that comes later bridges
        /// `expected` to `found`.
        case breaks(expected: String, found: String)
    }

    /// The hash before a sensor's first event (footstepd's `EventHasher.genesisHash`).
    public static let genesis = String(repeating: "0", count: 64)

    public private(set) var state: State

    public init(state: State = State()) { self.state = state }

    /// Verifies an event and moves the head to it (also after a break: what follows is verified against it).
    public mutating func receive(id: Int64, hash: String, previousHash: String) -> Verdict {
        if id <= state.lastEventId { return .duplicate }
        let verdict: Verdict
        if let head = state.head {
            verdict = previousHash == head ? .follows : .breaks(expected: head, found: previousHash)
        } else {
            verdict = previousHash == Self.genesis ? .follows : .startsHere
            state.verifiedFrom = id
        }
        state.head = hash
        state.lastEventId = id
        return verdict
    }
}
