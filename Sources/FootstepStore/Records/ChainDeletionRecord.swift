import Foundation
import GRDB

/// A recorded, deliberate removal of a contiguous run of events from the hash chain
/// (table `chainDeletion`), written by ``FootstepDatabase/deleteSession(_:)``.
///
/// It bridges the gap: the event after the run still links to `lastHash`, and the
/// event before it (or the genesis value) has `previousHash`'s value as its hash, so
/// ``FootstepDatabase/verifyChain()`` accepts exactly this gap and reports it as a
/// recorded deletion. A gap without such a row is reported as missing events.
public struct ChainDeletionRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// When the deletion happened (UTC).
    public var deletedAt: Date
    /// The session whose events were removed (the session row is gone; no foreign key).
    public var sessionId: Int64
    /// Title of the deleted session, for the audit trail.
    public var sessionTitle: String
    /// First removed event id of the run.
    public var firstEventId: Int64
    /// Last removed event id of the run.
    public var lastEventId: Int64
    /// Number of events removed in the run.
    public var eventCount: Int
    /// The chain value before the run (the `previousHash` of its first event).
    public var previousHash: String
    /// The chain value after the run (the `hash` of its last event).
    public var lastHash: String
    /// Why ("session deleted by user").
    public var reason: String
}

// Not PersistableRecord: tombstones are written only by deleteSession.
extension ChainDeletionRecord: FetchableRecord, TableRecord {
    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `chainDeletion`.
    public static let databaseTableName = "chainDeletion"
}
