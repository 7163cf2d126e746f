/// Which outbox rows are with the broker: the rows handed to the client and not yet acknowledged (by message id),
/// and the last row handed out. It decides what to send next; ``OutboxPublisher`` does the sending.
///
/// Rows are handed out in outbox order, at most `capacity` at a time. A row leaves the outbox only when its
/// PUBACK arrives. When the connection drops, every unacknowledged row goes back to be sent again from the first
/// one: the subscriber may see a row twice (consumers deduplicate by id), never lose one.
struct OutboxWindow: Sendable, Equatable {
    let capacity: Int
    /// Message id → outbox row id.
    private(set) var inFlight: [Int32: Int64] = [:]
    /// The last row handed out (0: none yet).
    private(set) var cursor: Int64 = 0

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// How many more rows may be handed out now.
    var room: Int { capacity - inFlight.count }

    /// Row `id` was published as message `mid`.
    mutating func sent(row id: Int64, as mid: Int32) {
        inFlight[mid] = id
        cursor = max(cursor, id)
    }

    /// Row `id` needs no message (its record is gone): it only moves the cursor.
    mutating func skipped(row id: Int64) { cursor = max(cursor, id) }

    /// Message `mid` was acknowledged: the outbox row to remove, if it is one of ours.
    mutating func acknowledged(_ mid: Int32) -> Int64? { inFlight.removeValue(forKey: mid) }

    /// The connection is new or lost: send every row still in the outbox again, from the first.
    mutating func restart() {
        inFlight.removeAll()
        cursor = 0
    }
}
