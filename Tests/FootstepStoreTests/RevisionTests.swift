import FootstepCore
import Foundation
import FootstepStore
import GRDB
import Testing

/// Type revisions: appended and hashed onto the event they revise, used by every
/// query, verified, and caught when edited, removed or bypassed.
@Suite("Type revisions")
struct RevisionTests {
    /// A session of 12 events (every third one `other`), stored; frame offsets 0.7 s apart.
    static func store(in dir: String) throws -> (FootstepDatabase, Int64, [EventRecord]) {
        let (store, session) = try makeStoreWithSession(in: dir)
        let events = (0..<12).map {
            makeEvent(session: session.id!, index: $0, type: .heelStrike, kind: $0 % 3 == 2 ? .other : .footstep)
        }
        let ids = try store.appendEvents(events)
        return (store, session.id!, try store.events(ids: ids))
    }

    @Test func aRevisionHangsOffItsEventAndQueriesUseTheCurrentType() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try Self.store(in: dir)
            let at = referenceStart.addingTimeInterval(60)
            let stored = try store.reviseTypes(
                [
                    NewTypeRevision(frameOffset: events[0].frameOffset, type: .stomping, confidence: 0.81),
                    NewTypeRevision(frameOffset: events[1].frameOffset, type: .heelStrike, confidence: 0.9),  // no change
                    NewTypeRevision(frameOffset: events[2].frameOffset, type: .running, confidence: 0.7),  // an `other`
                    NewTypeRevision(frameOffset: 123, type: .running, confidence: 0.7),  // no such event
                    NewTypeRevision(frameOffset: events[3].frameOffset, type: .shuffling, confidence: 0.66),
                ], sessionId: session, reason: "bout typer", at: at)
            #expect(stored.map(\.eventId) == [events[0].id!, events[3].id!])
            #expect(stored[0].previousHash == events[0].hash)
            #expect(stored[0].previousType == .heelStrike)
            #expect(stored[0].revisedAt == at)

            // A second revision follows the first.
            let again = try store.reviseTypes(
                [NewTypeRevision(frameOffset: events[0].frameOffset, type: .running, confidence: 0.58)], sessionId: session,
                reason: "bout typer")
            #expect(again.first?.previousHash == stored[0].hash)
            #expect(again.first?.previousType == .stomping)

            let first = try #require(try store.event(events[0].id!))
            #expect(first.type == .heelStrike)  // the stored, hashed type is untouched
            #expect(first.currentType == .running)
            #expect(first.currentConfidence == 0.58)
            #expect(first.revisionHash == again.first?.hash)
            #expect(try store.verifyChain().isIntact)

            #expect(try store.events(EventFilter(type: .running)).items.map(\.id) == [events[0].id])
            #expect(try store.events(EventFilter(type: .heelStrike, kind: .footstep)).items.count == 6)
            let counts = try store.eventCountsByType(from: referenceStart, to: referenceStart.addingTimeInterval(3600))
            #expect(counts == [.heelStrike: 6, .running: 1, .shuffling: 1])
            var rows: [EventReportRow] = []
            try store.forEachReportEvent(from: referenceStart, to: referenceStart.addingTimeInterval(3600)) { rows.append($0) }
            #expect(rows[0].type == .running)
            #expect(rows[0].confidence == 0.58)
            #expect(rows[0].revisedFrom == .heelStrike)
            #expect(rows[1].revisedFrom == nil)
            #expect(try store.revisions(ofEvents: [events[0].id!]).map(\.type) == [.stomping, .running])

            let report = try store.verifyRevisions()
            #expect(report.isIntact, "\(report)")
            #expect(report.checkedRevisions == 3)
            #expect(report.revisedEvents == 2)
            #expect(try store.verifyEvidence().revisions?.isIntact == true)
        }
    }

    @Test func anEditARemovalAndALabelChangedOutsideARevisionAreCaught() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try Self.store(in: dir)
            let path = dir + "/footstepd.db"
            for type in [FootstepType.stomping, .running, .shuffling] {
                try store.reviseTypes(
                    [NewTypeRevision(frameOffset: events[0].frameOffset, type: type, confidence: 0.7)], sessionId: session,
                    reason: "bout typer")
            }
            let ids = try store.revisions(ofEvents: [events[0].id!]).map { $0.id! }

            try tamper(path, "UPDATE typeRevision SET type = 'heel_strike' WHERE id = ?", [ids[0]])
            var report = try store.verifyRevisions()
            #expect(report.alteredRevisionIds == [ids[0]])
            #expect(report.description.contains("revision \(ids[0]) was altered"))
            #expect(try store.verifyEvidence().isIntact == false)
            try tamper(path, "UPDATE typeRevision SET type = 'stomping' WHERE id = ?", [ids[0]])
            #expect(try store.verifyRevisions().isIntact)

            // The middle revision removed: the last no longer follows the first.
            try tamper(path, "DELETE FROM typeRevision WHERE id = ?", [ids[1]])
            report = try store.verifyRevisions()
            #expect(report.brokenLinkRevisionIds == [ids[2]])

            // The current type set by hand, without a revision.
            try tamper(path, "UPDATE event SET revisedType = 'stomping' WHERE id = ?", [events[3].id!])
            report = try store.verifyRevisions()
            #expect(report.mismatchedEventIds == [events[3].id!])

            // The latest revision removed: the event's head names a revision that is gone.
            try tamper(path, "DELETE FROM typeRevision WHERE id = ?", [ids[2]])
            report = try store.verifyRevisions()
            #expect(report.mismatchedEventIds == [events[0].id!, events[3].id!])
            #expect(!report.isIntact)
        }
    }

    @Test func aBadConfidenceIsRefusedAndDeletingTheSessionTakesTheRevisions() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try Self.store(in: dir)
            #expect(throws: StoreError.self) {
                try store.reviseTypes(
                    [NewTypeRevision(frameOffset: events[0].frameOffset, type: .running, confidence: .nan)],
                    sessionId: session, reason: "x")
            }
            #expect(try store.revisions(ofEvents: events.map { $0.id! }).isEmpty)
            try store.reviseTypes(
                [NewTypeRevision(frameOffset: events[0].frameOffset, type: .running, confidence: 0.9)], sessionId: session,
                reason: "bout typer")
            try store.endSession(session, at: referenceStart.addingTimeInterval(3600))
            try store.deleteSession(session)
            #expect(try store.revisions(ofEvents: events.map { $0.id! }).isEmpty)
            #expect(try store.verifyRevisions().isIntact)
            #expect(try store.verifyChain().isIntact)
        }
    }

    @Test func anExportWithAnEditedRevisionIsRefused() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try Self.store(in: dir)
            try store.reviseTypes(
                [NewTypeRevision(frameOffset: events[0].frameOffset, type: .running, confidence: 0.9)], sessionId: session,
                reason: "bout typer")
            try store.endSession(session, at: referenceStart.addingTimeInterval(3600))
            var export = try store.exportSession(session, appVersion: "test")
            #expect(export.events[0].revisedType == "running")
            export.revisions[0].type = "stomping"
            let error = #expect(throws: ImportError.self) {
                try FootstepDatabase.open(path: dir + "/copy.db").importExports([export], source: "edited.json")
            }
            #expect(error?.description.contains("type revision(s) \(export.revisions[0].id)") == true)
            #expect(try FootstepDatabase.open(path: dir + "/copy.db").sessions().isEmpty)
        }
    }
}
