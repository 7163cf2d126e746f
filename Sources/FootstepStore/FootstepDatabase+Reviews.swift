import FootstepCore
import Foundation
import GRDB

extension FootstepDatabase {
    /// Stores a person's review of events: each covered event whose verdict or label
    /// would change gets one revision with the verdict, the reviewer and the reason,
    /// hashed onto the event's latest hash like every revision (``RevisionHasher``).
    /// All of it is one transaction: a range of 500 events is one write.
    ///
    /// A relabel gives the event the new type as a footstep, with confidence 1 (a
    /// person said so), and the verdict `confirmed`. A confirm or a reject keeps the
    /// label as it stands. Nothing is deleted: a rejected event stays, marked.
    ///
    /// - Throws: ``StoreError/eventNotFound(_:)`` for the first id of `.events` that
    ///   is not stored (nothing is stored then); ``StoreError/invalidValue(_:)`` for
    ///   a relabel to `unknown`, an empty range, or a target with no events.
    @discardableResult
    public func review(
        _ target: ReviewTarget, _ action: ReviewAction, by reviewer: Reviewer, reason: String = "", at: Date = Date()
    ) throws(StoreError) -> ReviewOutcome {
        if case let .relabel(type) = action, type == .unknown {
            throw .invalidValue("a relabel names a footstep type (\(FootstepType.classified.map(\.rawValue).joined(separator: ", "))), not unknown")
        }
        if case let .range(from, to) = target, !(from < to) {
            throw .invalidValue("a review's range must end after it starts")
        }
        let reviewedAt = StoredDate.date(StoredDate.text(at)) ?? at
        return try write { db in
            let rows = try Self.reviewedRows(db, target)
            var outcome = ReviewOutcome(reviews: [], unchangedEventIds: [])
            outcome.reviews.reserveCapacity(rows.count)
            for row in rows {
                let label: (kind: EventKind, type: FootstepType, confidence: Double)
                switch action {
                case let .relabel(type):
                    label = (.footstep, type, 1)
                case .confirm, .reject:
                    let kind: String = row["revisedKind"] ?? row["kind"]
                    let type: String = row["revisedType"] ?? row["type"]
                    label = (EventKind(rawValue: kind) ?? .other, FootstepType(rawValue: type) ?? .unknown,
                             row["revisedConfidence"] ?? row["confidence"])
                }
                if let record = try Self.appendRevision(
                    db, event: row, label: label, reason: reason, review: (action.verdict, reviewer), at: reviewedAt)
                {
                    outcome.reviews.append(record)
                } else {
                    outcome.unchangedEventIds.append(row["id"])
                }
            }
            return outcome
        }
    }

    /// The rows (``revisionColumns``) a target covers, by id.
    private static func reviewedRows(_ db: Database, _ target: ReviewTarget) throws -> [Row] {
        let rows: [Row]
        switch target {
        case let .events(ids):
            let wanted = Array(Set(ids)).sorted()
            var found: [Row] = []
            for start in stride(from: 0, to: wanted.count, by: 500) {
                let chunk = Array(wanted[start..<min(start + 500, wanted.count)])
                found += try Row.fetchAll(
                    db, sql: "SELECT \(revisionColumns) FROM event WHERE id IN (\(chunk.map { _ in "?" }.joined(separator: ",")))",
                    arguments: StatementArguments(chunk))
            }
            let stored = Set(found.map { $0["id"] as Int64 })
            if let missing = wanted.first(where: { !stored.contains($0) }) { throw StoreError.eventNotFound(missing) }
            rows = found
        case let .bout(id):
            rows = try Row.fetchAll(db, sql: "SELECT \(revisionColumns) FROM event WHERE boutId = ?", arguments: [id])
            if rows.isEmpty { throw StoreError.invalidValue("no stored event belongs to bout \(id)") }
        case let .range(from, to):
            rows = try Row.fetchAll(
                db, sql: "SELECT \(revisionColumns) FROM event WHERE timestamp >= ? AND timestamp < ?",
                arguments: [StoredDate.text(from), StoredDate.text(to)])
            if rows.isEmpty {
                throw StoreError.invalidValue(
                    "no stored event has its onset from \(StoredDate.text(from)) to \(StoredDate.text(to)) (UTC)")
            }
        }
        return rows.sorted { ($0["id"] as Int64) < ($1["id"] as Int64) }
    }
}
