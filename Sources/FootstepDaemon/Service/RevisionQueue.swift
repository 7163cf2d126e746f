import FootstepAnalysis
import FootstepStore
import Foundation
import Logging

/// The label revisions of one session waiting for the store: appended as the
/// gait context settles provisional events and the bout reviser names types
/// again, stored in one transaction once their events are (a revision finds
/// its event by onset frame; one that changes nothing is not stored), each
/// logged and moving today's counts; an event whose label changed is
/// published live again with its current label (and `revised_from`) and
/// replaces the status's last event when it is that one; kept and retried
/// while the store refuses.
///
/// - Note: Used by the service's task only, through ``SessionSink``.
struct RevisionQueue {
    typealias StatusUpdate = SessionSink.StatusUpdate

    /// What each revision the daemon stores says about itself: the bout typer's…
    static let reason = "bout typer: the step's type named again from its whole bout"
    /// …and the gait context's.
    static let settlingReason = "gait context: the label settled by the impacts around it"

    let database: FootstepDatabase
    let sessionId: Int64
    let logger: Logger

    private var pending: [NewTypeRevision] = []
    private var failedAttempts = 0
    /// Revisions stored so far.
    private(set) var stored = 0

    init(database: FootstepDatabase, sessionId: Int64, logger: Logger) {
        self.database = database
        self.sessionId = sessionId
        self.logger = logger
    }

    private var metadata: Logger.Metadata { ["footstep.session": "\(sessionId)"] }

    mutating func append(_ revision: TypeRevision) {
        pending.append(
            NewTypeRevision(
                frameOffset: revision.onsetFrame, kind: revision.kind, type: revision.type, confidence: revision.confidence,
                reason: revision.settles ? Self.settlingReason : nil))
    }

    /// Appends the pending revisions (each hashed onto its event), logs each,
    /// moves today's count and hands every event whose label changed, as now
    /// stored, to `publish` (once, however many of its revisions were stored);
    /// on a refusal keeps them for the next call, said once and then every
    /// 100th attempt.
    mutating func store(status: StatusUpdate, publish: (EventRecord) -> Void) {
        guard !pending.isEmpty else { return }
        do {
            let revisions = try database.reviseTypes(pending, sessionId: sessionId, reason: Self.reason)
            pending.removeAll(keepingCapacity: true)
            failedAttempts = 0
            guard !revisions.isEmpty else { return }
            let events = Dictionary(
                ((try? database.events(ids: revisions.map(\.eventId))) ?? []).map { ($0.id!, $0) }) { first, _ in first }
            // Each event's label before this batch, in the order first revised.
            var before: [(id: Int64, label: String)] = []
            for revision in revisions {
                let from = revision.previousKind.label(revision.previousType)
                let to = revision.kind.label(revision.type)
                let why = revision.reason == Self.settlingReason ? "by the impacts around it" : "once its bout was heard"
                // A settling revision may keep the label and move only the confidence.
                let change = from == to ? "kept as \(to)" : "revised from \(from) to \(to)"
                logger.info(
                    "event \(revision.eventId) \(change) \(why), confidence \(String(format: "%.2f", revision.confidence))",
                    metadata: metadata.merging([
                        "footstep.event_id": "\(revision.eventId)", "footstep.type": "\(to)",
                        "footstep.revised_from": "\(from)",
                    ]) { $1 })
                if from != to, let timestamp = events[revision.eventId]?.timestamp {
                    status { $0.recountToday(from: from, to: to, timestamp: timestamp) }
                    if !before.contains(where: { $0.id == revision.eventId }) { before.append((revision.eventId, from)) }
                }
            }
            for (id, label) in before {
                guard let event = events[id] else { continue }
                status { if $0.lastEvent?.id == id { $0.lastEvent = event } }
                // Revised and revised back within the batch: nothing new to say.
                if event.currentKind.label(event.currentType) != label { publish(event) }
            }
            stored += revisions.count
        } catch {
            failedAttempts += 1
            if failedAttempts == 1 || failedAttempts % 100 == 0 {
                logger.error(
                    "cannot store \(pending.count) label revisions (attempt \(failedAttempts)): \(error)", metadata: metadata)
            }
            if pending.count > 10_000 {
                logger.critical(
                    "dropping \(pending.count) unstored label revisions (the events keep their live labels)", metadata: metadata)
                pending.removeAll()
            }
        }
    }

    /// At the session's end: what could not be stored is said and dropped.
    mutating func abandon() {
        guard !pending.isEmpty else { return }
        logger.critical(
            "\(pending.count) label revisions could not be stored (the events keep their live labels)", metadata: metadata)
        pending.removeAll()
    }
}
