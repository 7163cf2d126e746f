import Foundation

/// The result of ``FootstepDatabase/verifyChain()``: every problem found in the event
/// hash chain, each naming the rows concerned.
public struct ChainReport: Sendable, Hashable, CustomStringConvertible {
    /// An event whose stored hash does not match its recomputed hash: one of its
    /// evidence fields (or its hash, or its previousHash) was changed after it was written.
    public struct AlteredEvent: Sendable, Hashable {
        /// The altered row.
        public var eventId: Int64
        /// Its session id as stored (nil if that column was tampered into a non-integer).
        public var sessionId: Int64?
        /// The `hash` column as stored.
        public var storedHash: String
        /// The hash recomputed from the stored fields.
        public var computedHash: String
    }

    /// A link of the chain that does not connect and is not bridged by a recorded deletion.
    public struct ChainBreak: Sendable, Hashable {
        /// What the break means.
        public enum Kind: String, Sendable, Hashable {
            /// Ids are missing between `afterEventId` and `beforeEventId`: rows were deleted.
            case eventsMissing
            /// Adjacent ids do not link: the earlier row's hash or the later row's
            /// previousHash was rewritten (or rows were deleted and ids reused).
            case linkRewritten
            /// Rows after `afterEventId` (up to `beforeEventId`, the last id ever
            /// appended) are gone: the end of the chain was cut off.
            case tailMissing
        }

        /// What the break means.
        public var kind: Kind
        /// The last intact row before the break; nil when the break is before the first row.
        public var afterEventId: Int64?
        /// The first row after the break (for `tailMissing`: the last id ever appended).
        public var beforeEventId: Int64?
        /// The chain value the later row should link to.
        public var expectedPreviousHash: String
        /// The value it links to.
        public var foundPreviousHash: String
    }

    /// Number of event rows checked.
    public var checkedEvents: Int
    /// Rows whose content does not match their hash.
    public var alteredEvents: [AlteredEvent]
    /// Links that do not connect.
    public var breaks: [ChainBreak]
    /// Deliberate deletions recorded by `deleteSession`, bridged and accepted.
    public var recordedDeletions: [ChainDeletionRecord]
    /// The chain head: the hash of the last event ever appended (publish it, e.g. in
    /// reports, to detect a rewrite of the whole chain).
    public var headHash: String
    /// The id of the last event ever appended (0 if none).
    public var headEventId: Int64

    /// True when nothing was altered and every link connects.
    public var isIntact: Bool { alteredEvents.isEmpty && breaks.isEmpty }

    /// Ids of the rows named in any problem (altered rows and rows next to breaks).
    public var affectedEventIds: [Int64] {
        var ids = Set(alteredEvents.map(\.eventId))
        for item in breaks {
            if let id = item.afterEventId { ids.insert(id) }
            if let id = item.beforeEventId { ids.insert(id) }
        }
        return ids.sorted()
    }

    public var description: String {
        var lines: [String] = []
        lines.append(
            isIntact
                ? "hash chain intact: \(checkedEvents) events verified, head \(headHash.prefix(16))…"
                : "hash chain BROKEN: \(alteredEvents.count) altered event(s), \(breaks.count) break(s) in \(checkedEvents) events")
        for altered in alteredEvents {
            lines.append(
                "  event \(altered.eventId) (session \(altered.sessionId.map(String.init) ?? "?")) was altered: "
                    + "stored hash \(altered.storedHash.prefix(16))…, content hashes to \(altered.computedHash.prefix(16))…")
        }
        for item in breaks {
            let after = item.afterEventId.map(String.init) ?? "the start"
            let before = item.beforeEventId.map(String.init) ?? "?"
            switch item.kind {
            case .eventsMissing:
                lines.append("  events deleted between id \(after) and id \(before) (no deletion was recorded)")
            case .linkRewritten:
                lines.append("  the link between events \(after) and \(before) was rewritten")
            case .tailMissing:
                lines.append("  events after id \(after) (up to id \(before)) are missing from the end of the chain")
            }
        }
        for deletion in recordedDeletions {
            lines.append(
                "  recorded deletion: events \(deletion.firstEventId)–\(deletion.lastEventId) (\(deletion.eventCount)) "
                    + "of session \(deletion.sessionId) \"\(deletion.sessionTitle)\" on \(StoredDate.text(deletion.deletedAt)) UTC: \(deletion.reason)")
        }
        return lines.joined(separator: "\n")
    }
}
