import FootstepCore
import Foundation
import GRDB

extension FootstepDatabase {
    /// Appends label revisions for stored events of one session, in one transaction.
    ///
    /// Each revision finds its event by `frameOffset`; one whose event is not
    /// stored in the session, or that would not change the event's current
    /// kind, type or confidence, is skipped. Each stored revision is hashed
    /// onto the event's latest hash (the event's own for its first revision,
    /// see ``TypeRevisionRecord``), and the event row's current kind, type,
    /// confidence and revision head move to it.
    ///
    /// - Parameters:
    ///   - revisions: New labels, in the order they were decided.
    ///   - reason: Who revised and why (e.g. `bout typer`), kept in each
    ///     revision that does not give its own.
    ///   - at: When (now; stored with millisecond precision).
    /// - Returns: The stored revisions, with ids and hashes.
    /// - Throws: ``StoreError/invalidValue(_:)`` for a confidence outside 0…1
    ///   or an `other` with a footstep type.
    @discardableResult
    public func reviseTypes(_ revisions: [NewTypeRevision], sessionId: Int64, reason: String, at: Date = Date())
        throws(StoreError) -> [TypeRevisionRecord]
    {
        if let bad = revisions.first(where: { !($0.confidence >= 0 && $0.confidence <= 1) }) {
            throw .invalidValue("a revision's confidence must be between 0 and 1, not \(bad.confidence)")
        }
        if let bad = revisions.first(where: { $0.kind == .other && $0.type != .unknown }) {
            throw .invalidValue("a revision to other must have type unknown, not \(bad.type.rawValue)")
        }
        guard !revisions.isEmpty else { return [] }
        // Stored at millisecond precision: hash what will be read back.
        let revisedAt = StoredDate.date(StoredDate.text(at)) ?? at
        return try write { db in
            var stored: [TypeRevisionRecord] = []
            stored.reserveCapacity(revisions.count)
            for revision in revisions {
                guard let event = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT \(Self.revisionColumns)
                        FROM event WHERE sessionId = ? AND frameOffset = ? ORDER BY id DESC LIMIT 1
                        """,
                    arguments: [sessionId, revision.frameOffset])
                else { continue }
                let label = (revision.kind, revision.type, revision.confidence)
                if let record = try Self.appendRevision(
                    db, event: event, label: label, reason: revision.reason ?? reason, review: nil, at: revisedAt)
                {
                    stored.append(record)
                }
            }
            return stored
        }
    }

    /// The columns of an event row ``appendRevision(_:event:label:reason:review:at:)`` reads.
    static let revisionColumns =
        "id, kind, type, confidence, revisedKind, revisedType, revisedConfidence, hash, revisionHash, reviewVerdict"

    /// Appends one revision to `event` (a row of ``revisionColumns``): a new `label`, and with `review` a person's
    /// verdict; nil when it would change neither the event's current label nor its verdict.
    static func appendRevision(
        _ db: Database, event: Row, label: (kind: EventKind, type: FootstepType, confidence: Double), reason: String,
        review: (verdict: ReviewVerdict, reviewer: Reviewer)?, at: Date
    ) throws -> TypeRevisionRecord? {
        let eventId: Int64 = event["id"]
        let kindText: String = event["revisedKind"] ?? event["kind"]
        let typeText: String = event["revisedType"] ?? event["type"]
        let confidence: Double = event["revisedConfidence"] ?? event["confidence"]
        let verdictText: String? = event["reviewVerdict"]
        guard let kind = EventKind(rawValue: kindText), let type = FootstepType(rawValue: typeText) else {
            throw StoreError.invalidValue(
                "event row \(eventId): its label is '\(kindText)' '\(typeText)' (run footstepctl verify)")
        }
        let sameLabel = kind == label.kind && type == label.type && confidence == label.confidence
        guard !sameLabel || (review != nil && review?.verdict.rawValue != verdictText) else { return nil }
        let previousHash: String = event["revisionHash"] ?? event["hash"]
        var record = TypeRevisionRecord(
            eventId: eventId, revisedAt: at, previousKind: kind, previousType: type, kind: label.kind,
            type: label.type, confidence: label.confidence, reason: reason, verdict: review?.verdict,
            reviewerUid: review?.reviewer.uid, reviewer: review?.reviewer.name, previousHash: previousHash, hash: "")
        record.hash = RevisionHasher.hash(of: record)
        try record.insert(db)
        try db.execute(
            sql: """
                UPDATE event SET revisedKind = ?, revisedType = ?, revisedConfidence = ?, revisionHash = ?,
                       reviewVerdict = COALESCE(?, reviewVerdict)
                WHERE id = ?
                """,
            arguments: [
                label.kind.rawValue, label.type.rawValue, label.confidence, record.hash, review?.verdict.rawValue,
                eventId,
            ])
        return record
    }

    /// The revisions of the given events, by event then in the order they were made.
    public func revisions(ofEvents eventIds: [Int64]) throws(StoreError) -> [TypeRevisionRecord] {
        guard !eventIds.isEmpty else { return [] }
        return try read { db in
            var result: [TypeRevisionRecord] = []
            // Chunks keep the statement under SQLite's variable limit.
            for start in stride(from: 0, to: eventIds.count, by: 500) {
                let chunk = Array(eventIds[start..<min(start + 500, eventIds.count)])
                result += try TypeRevisionRecord.fetchAll(
                    db,
                    sql: "SELECT * FROM typeRevision WHERE eventId IN (\(chunk.map { _ in "?" }.joined(separator: ","))) ORDER BY eventId, id",
                    arguments: StatementArguments(chunk))
            }
            return result.sorted { ($0.eventId, $0.id ?? 0) < ($1.eventId, $1.id ?? 0) }
        }
    }

    /// The revision head: the id of the last revision ever stored here (0 before v7 or before any).
    static func lastRevisionId(_ db: Database) throws -> Int64 {
        guard try db.tableExists("revisionHead") else { return 0 }
        return try Int64.fetchOne(db, sql: "SELECT lastRevisionId FROM revisionHead WHERE id = 1") ?? 0
    }

    /// Records the revision ids above `after` and up to the head that are not stored (an import brought revisions
    /// whose neighbours stayed in the database they were exported from) as removed, without a tombstone.
    static func recordRevisionsElsewhere(_ db: Database, after: Int64) throws {
        let head = try lastRevisionId(db)
        guard head > after else { return }
        try db.execute(
            sql: """
                WITH RECURSIVE ids(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM ids WHERE n < ?)
                INSERT OR IGNORE INTO removedRevision (revisionId, chainDeletionId)
                SELECT n, NULL FROM ids WHERE n NOT IN (SELECT id FROM typeRevision)
                """, arguments: [after + 1, head])
    }

    /// Recomputes every revision's hash, checks that each follows its event or the
    /// revision before it, and that every revised event's current label is its latest revision's.
    public func verifyRevisions() throws(StoreError) -> RevisionChainReport {
        try read { db in
            var report = RevisionChainReport(
                checkedRevisions: 0, revisedEvents: 0, alteredRevisionIds: [], brokenLinkRevisionIds: [],
                mismatchedEventIds: [])
            // A database opened read-only before its v3 migration has no revisions yet.
            guard try db.tableExists("typeRevision") else { return report }
            let revisions = try TypeRevisionRecord.fetchAll(db, sql: "SELECT * FROM typeRevision ORDER BY eventId, id")
            // Read-only before v8: no verdicts yet.
            let verdictColumn = try db.columns(in: "event").contains { $0.name == "reviewVerdict" } ? "reviewVerdict" : "NULL"
            let events = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, kind, type, confidence, hash, revisedKind, revisedType, revisedConfidence, revisionHash,
                           \(verdictColumn) AS reviewVerdict
                    FROM event
                    WHERE revisedKind IS NOT NULL OR revisedType IS NOT NULL OR revisedConfidence IS NOT NULL
                       OR revisionHash IS NOT NULL OR \(verdictColumn) IS NOT NULL
                       OR id IN (SELECT eventId FROM typeRevision)
                    ORDER BY id
                    """)
            var byEvent: [Int64: [TypeRevisionRecord]] = [:]
            for revision in revisions { byEvent[revision.eventId, default: []].append(revision) }
            report.checkedRevisions = revisions.count
            report.revisedEvents = byEvent.count
            for event in events {
                let id: Int64 = event["id"]
                var expectedHash: String = event["hash"]
                var expectedKind: String = event["kind"]
                var expectedType: String = event["type"]
                var latest: TypeRevisionRecord?
                var verdict: ReviewVerdict?
                for revision in byEvent.removeValue(forKey: id) ?? [] {
                    verdict = revision.verdict ?? verdict
                    if RevisionHasher.hash(of: revision) != revision.hash { report.alteredRevisionIds.append(revision.id!) }
                    if revision.previousHash != expectedHash || revision.previousKind.rawValue != expectedKind
                        || revision.previousType.rawValue != expectedType
                    {
                        report.brokenLinkRevisionIds.append(revision.id!)
                    }
                    expectedHash = revision.hash
                    expectedKind = revision.kind.rawValue
                    expectedType = revision.type.rawValue
                    latest = revision
                }
                let revisedKind: String? = event["revisedKind"]
                let revisedType: String? = event["revisedType"]
                let revisedConfidence: Double? = event["revisedConfidence"]
                let revisionHash: String? = event["revisionHash"]
                let reviewVerdict: String? = event["reviewVerdict"]
                // Revisions stored before kinds could change (v5) left revisedKind empty:
                // what must agree is the kind queries read.
                let storedKind: String = event["kind"]
                let currentKind = latest == nil ? revisedKind : revisedKind ?? storedKind
                if currentKind != latest?.kind.rawValue || revisedType != latest?.type.rawValue
                    || revisedConfidence != latest?.confidence
                    || revisionHash != latest?.hash || reviewVerdict != verdict?.rawValue
                {
                    report.mismatchedEventIds.append(id)
                }
            }
            // Revisions of events that are gone (only possible with foreign keys off).
            for orphans in byEvent.values { report.brokenLinkRevisionIds += orphans.compactMap(\.id) }
            // Every id up to the head is stored, or was removed with a deleted session (v7 on).
            if try db.tableExists("revisionHead") {
                let head = try Self.lastRevisionId(db)
                let removed = Set(try Int64.fetchAll(db, sql: "SELECT revisionId FROM removedRevision"))
                let stored = Set(revisions.compactMap(\.id))
                if head > 0 {
                    report.missingRevisionIds = (1...head).filter { !stored.contains($0) && !removed.contains($0) }
                }
            }
            report.alteredRevisionIds.sort()
            report.brokenLinkRevisionIds.sort()
            return report
        }
    }
}
