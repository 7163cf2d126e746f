/// The result of ``FootstepDatabase/verifyRevisions()``: every problem found in the
/// type revisions hanging off the event chain.
public struct RevisionChainReport: Sendable, Hashable, CustomStringConvertible {
    /// Revisions whose hashes were recomputed.
    public var checkedRevisions: Int
    /// Events with at least one revision.
    public var revisedEvents: Int
    /// Revisions whose stored fields do not give their stored hash (edited after writing).
    public var alteredRevisionIds: [Int64]
    /// Revisions that do not follow their event's hash (first revision) or the
    /// revision before them, or whose `previousType` is not the type they replace:
    /// a revision of the event was removed, inserted or moved.
    public var brokenLinkRevisionIds: [Int64]
    /// Events whose current type, confidence or revision head does not match their
    /// latest revision: the label was edited outside a revision, or the latest
    /// revisions were removed.
    public var mismatchedEventIds: [Int64]
    /// Revision ids up to the head (the last ever stored) that are neither in the store nor recorded as removed
    /// with a deleted session: removed some other way.
    public var missingRevisionIds: [Int64] = []

    /// Nothing altered, removed or edited.
    public var isIntact: Bool {
        alteredRevisionIds.isEmpty && brokenLinkRevisionIds.isEmpty && mismatchedEventIds.isEmpty
            && missingRevisionIds.isEmpty
    }

    public var description: String {
        let counts = "\(checkedRevisions) revision\(checkedRevisions == 1 ? "" : "s") of \(revisedEvents) event\(revisedEvents == 1 ? "" : "s")"
        if isIntact { return "type revisions intact: \(counts) verified" }
        var lines = ["type revisions NOT intact (\(counts) checked)"]
        for id in alteredRevisionIds { lines.append("  revision \(id) was altered (its fields no longer match its hash)") }
        for id in brokenLinkRevisionIds {
            lines.append("  revision \(id) does not follow its event or the revision before it (a revision was removed, inserted or moved)")
        }
        if !missingRevisionIds.isEmpty {
            let shown = missingRevisionIds.prefix(20).map(String.init).joined(separator: ", ")
            let more = missingRevisionIds.count > 20 ? " and \(missingRevisionIds.count - 20) more" : ""
            let noun = missingRevisionIds.count == 1 ? "revision" : "revisions"
            lines.append("  \(noun) \(shown)\(more) missing (removed, and not with a deleted session)")
        }
        for id in mismatchedEventIds {
            lines.append("  event \(id)'s current type does not match its latest revision (edited outside a revision, or revisions removed)")
        }
        return lines.joined(separator: "\n")
    }
}
