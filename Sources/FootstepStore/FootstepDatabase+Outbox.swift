import Foundation
import GRDB

extension FootstepDatabase {
    /// Starts (true) or stops (false) queueing what MQTT publishes. Stopping
    /// empties the outbox: nothing would publish it.
    ///
    /// - Returns: The rows removed (0 when enabling).
    @discardableResult
    public func setOutbox(enabled: Bool) throws(StoreError) -> Int {
        try write { db in
            try db.execute(sql: "UPDATE outboxState SET enabled = ? WHERE id = 1", arguments: [enabled])
            guard !enabled else { return 0 }
            try db.execute(sql: "DELETE FROM outbox")
            return db.changesCount
        }
    }

    /// Up to `limit` queued rows after the row `after`, in the order they were
    /// queued, each with the record it names (``OutboxEntry/Item/gone`` when
    /// that record was deleted since).
    public func outbox(after: Int64 = 0, limit: Int = 100) throws(StoreError) -> [OutboxEntry] {
        try read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM outbox WHERE id > ? ORDER BY id LIMIT ?", arguments: [after, max(1, limit)])
            return try rows.map { row in
                let recordId: Int64 = row["recordId"]
                let topic = OutboxEntry.Topic(rawValue: row["topic"]) ?? .levels
                return OutboxEntry(
                    id: row["id"], topic: topic, sessionId: row["sessionId"],
                    queuedAt: Self.queuedDate(row["queuedAt"]),
                    item: try Self.outboxItem(db, topic: topic, recordId: recordId, detail: row["detail"]))
            }
        }
    }

    /// Removes rows the broker has acknowledged.
    public func removeFromOutbox(_ ids: [Int64]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try write { db in
            for chunk in stride(from: 0, to: ids.count, by: 500) {
                let part = Array(ids[chunk..<min(ids.count, chunk + 500)])
                try db.execute(
                    sql: "DELETE FROM outbox WHERE id IN (\(databaseQuestionMarks(count: part.count)))",
                    arguments: StatementArguments(part))
            }
        }
    }

    /// Keeps the outbox within `maximumRows`: the oldest level rows go first
    /// and are counted in ``OutboxHealth/dropped``; events, revisions,
    /// tombstones, sessions and gaps are never dropped.
    ///
    /// - Returns: The level rows dropped now.
    @discardableResult
    public func trimOutbox(maximumRows: Int) throws(StoreError) -> Int {
        try write { db in
            let depth = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox") ?? 0
            guard depth > maximumRows else { return 0 }
            try db.execute(
                sql: """
                    DELETE FROM outbox WHERE id IN (
                        SELECT id FROM outbox WHERE topic = 'levels' ORDER BY id LIMIT ?)
                    """, arguments: [depth - maximumRows])
            let dropped = db.changesCount
            try db.execute(sql: "UPDATE outboxState SET dropped = dropped + ? WHERE id = 1", arguments: [dropped])
            return dropped
        }
    }

    /// How much waits to be published.
    public func outboxHealth() throws(StoreError) -> OutboxHealth {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT COUNT(*) FROM outbox) AS depth,
                           (SELECT MIN(queuedAt) FROM outbox) AS oldest,
                           dropped, enabled
                    FROM outboxState WHERE id = 1
                    """)
            guard let row else { return OutboxHealth(enabled: false, depth: 0, oldestQueuedAt: nil, dropped: 0) }
            let oldest: String? = row["oldest"]
            return OutboxHealth(
                enabled: row["enabled"], depth: row["depth"], oldestQueuedAt: oldest.map(Self.queuedDate),
                dropped: row["dropped"])
        }
    }

    /// Calls `onChange` after every transaction that changed the outbox, on a
    /// GRDB queue, until the observation is cancelled.
    public func observeOutbox(onError: @escaping @Sendable (Error) -> Void, onChange: @escaping @Sendable () -> Void)
        -> OutboxObservation
    {
        let observation = DatabaseRegionObservation(tracking: Table("outbox"))
        return OutboxObservation(observation.start(in: writer, onError: onError) { _ in onChange() })
    }

    /// A trigger's `queuedAt` (SQLite's `strftime`, UTC, milliseconds).
    private static func queuedDate(_ text: String) -> Date { StoredDate.date(text) ?? Date(timeIntervalSince1970: 0) }

    private static func outboxItem(
        _ db: Database, topic: OutboxEntry.Topic, recordId: Int64, detail: String?
    ) throws -> OutboxEntry.Item {
        switch topic {
        case .event:
            return try EventRecord.fetchOne(db, key: recordId).map(OutboxEntry.Item.event) ?? .gone
        case .revision:
            return try TypeRevisionRecord.fetchOne(db, key: recordId).map(OutboxEntry.Item.revision) ?? .gone
        case .deletion:
            return try ChainDeletionRecord.fetchOne(db, key: recordId).map(OutboxEntry.Item.deletion) ?? .gone
        case .session:
            guard let session = try SessionRecord.fetchOne(db, key: recordId) else { return .gone }
            return .session(session, status: detail.flatMap(SessionStatus.init(rawValue:)) ?? session.status)
        case .gap:
            return try SessionGapRecord.fetchOne(db, key: recordId).map(OutboxEntry.Item.gap) ?? .gone
        case .levels:
            return try LevelMinuteRecord.fetchOne(db, key: recordId).map(OutboxEntry.Item.levels) ?? .gone
        case .exceedance:
            return try RuleExceedanceRecord.fetchOne(db, key: recordId).map(OutboxEntry.Item.exceedance) ?? .gone
        }
    }
}

/// A row of the outbox: something stored that MQTT is to publish.
public struct OutboxEntry: Sendable, Equatable {
    public enum Topic: String, Sendable, CaseIterable {
        case event, revision, deletion, session, gap, levels, exceedance
    }

    /// The record, as it is now (a session with its status when the row was queued).
    public enum Item: Sendable, Equatable {
        case event(EventRecord)
        case revision(TypeRevisionRecord)
        case deletion(ChainDeletionRecord)
        case session(SessionRecord, status: SessionStatus)
        case gap(SessionGapRecord)
        case levels(LevelMinuteRecord)
        case exceedance(RuleExceedanceRecord)
        /// Deleted since it was queued (a deleted session's events: its tombstone says so).
        case gone
    }

    public var id: Int64
    public var topic: Topic
    public var sessionId: Int64?
    public var queuedAt: Date
    public var item: Item
}

/// The outbox's depth and losses.
public struct OutboxHealth: Sendable, Equatable {
    /// Whether stored records are queued (MQTT is on).
    public var enabled: Bool
    public var depth: Int
    /// When the oldest row still waiting was queued.
    public var oldestQueuedAt: Date?
    /// Level rows dropped to keep the outbox bounded, ever.
    public var dropped: Int
}

/// An outbox observation; it stops when cancelled or released.
public final class OutboxObservation: Sendable {
    private let cancellable: AnyDatabaseCancellable

    init(_ cancellable: AnyDatabaseCancellable) { self.cancellable = cancellable }

    public func cancel() { cancellable.cancel() }
}
