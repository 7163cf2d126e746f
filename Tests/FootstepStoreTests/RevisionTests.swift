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
                    NewTypeRevision(frameOffset: events[1].frameOffset, type: .heelStrike, confidence: events[1].confidence),  // no change
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
            #expect(rows[0].revisedFrom == "heel_strike")
            #expect(rows[1].revisedFrom == nil)
            #expect(try store.revisions(ofEvents: [events[0].id!]).map(\.type) == [.stomping, .running])

            let report = try store.verifyRevisions()
            #expect(report.isIntact, "\(report)")
            #expect(report.checkedRevisions == 3)
            #expect(report.revisedEvents == 2)
            #expect(try store.verifyEvidence().revisions?.isIntact == true)
            // A type revision stored before kinds could change (schema v5) left revisedKind empty.
            try tamper(dir + "/footstepd.db", "UPDATE event SET revisedKind = NULL WHERE id = ?", [events[0].id!])
            #expect(try store.verifyRevisions().isIntact)
            #expect(try store.event(events[0].id!)?.currentKind == .footstep)
        }
    }

    @Test func aKindRevisionIsHashedAsOneAndQueriesUseTheCurrentKind() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try Self.store(in: dir)
            #expect(events[0].kind == .footstep && events[2].kind == .other)
            let footstepsBefore = try store.events(EventFilter(kind: .footstep)).items.count
            let stored = try store.reviseTypes(
                [
                    // A provisional `other` settled as a footstep, a provisional footstep as `other`.
                    NewTypeRevision(frameOffset: events[2].frameOffset, type: .running, confidence: 0.72, reason: "gait context"),
                    NewTypeRevision(frameOffset: events[0].frameOffset, kind: .other, type: .unknown, confidence: 0.7),
                ], sessionId: session, reason: "bout typer")
            #expect(stored.map(\.eventId) == [events[2].id!, events[0].id!])
            #expect(stored.map(\.reason) == ["gait context", "bout typer"])
            #expect(stored[0].previousKind == .other && stored[0].kind == .footstep && stored[0].changesKind)
            #expect(stored[1].previousKind == .footstep && stored[1].kind == .other && stored[1].type == .unknown)
            // Kinds are in the hashed text (v2); a type revision keeps the v1 text.
            #expect(RevisionHasher.text(of: stored[0]).hasPrefix(RevisionHasher.kindFormatTag + "\n"))
            #expect(RevisionHasher.text(of: stored[0]).contains("\npreviousKind=other\n"))
            var typeOnly = stored[0]
            typeOnly.previousKind = .footstep
            #expect(RevisionHasher.text(of: typeOnly).hasPrefix(RevisionHasher.formatTag + "\n"))
            #expect(!RevisionHasher.text(of: typeOnly).contains("Kind="))
            #expect(RevisionHasher.hash(of: typeOnly) != stored[0].hash)

            let settled = try #require(try store.event(events[2].id!))
            #expect(settled.kind == .other && settled.currentKind == .footstep && settled.currentType == .running)
            #expect(try store.events(EventFilter(kind: .footstep)).items.count == footstepsBefore)
            #expect(try store.events(EventFilter(kind: .footstep)).items.contains { $0.id == events[2].id })
            #expect(try store.events(EventFilter(kind: .other)).items.contains { $0.id == events[0].id })
            let counts = try store.eventCountsByType(from: referenceStart, to: referenceStart.addingTimeInterval(3600))
            #expect(counts[.running] == 1 && counts[.unknown] == nil)
            #expect(try store.session(session)?.footstepCount == footstepsBefore)
            var rows: [EventReportRow] = []
            try store.forEachReportEvent(from: referenceStart, to: referenceStart.addingTimeInterval(3600)) { rows.append($0) }
            #expect(rows[0].kind == .other && rows[0].revisedFrom == "heel_strike")
            #expect(rows[2].kind == .footstep && rows[2].type == .running && rows[2].revisedFrom == "other")
            #expect(try store.verifyRevisions().isIntact)

            // The current kind set by hand, or a revision's kind edited, is caught.
            let path = dir + "/footstepd.db"
            try tamper(path, "UPDATE event SET revisedKind = 'footstep' WHERE id = ?", [events[0].id!])
            #expect(try store.verifyRevisions().mismatchedEventIds == [events[0].id!])
            try tamper(path, "UPDATE event SET revisedKind = 'other' WHERE id = ?", [events[0].id!])
            try tamper(path, "UPDATE typeRevision SET previousKind = 'footstep' WHERE id = ?", [stored[0].id!])
            #expect(try store.verifyRevisions().alteredRevisionIds == [stored[0].id!])
            try tamper(path, "UPDATE typeRevision SET previousKind = 'other' WHERE id = ?", [stored[0].id!])
            #expect(try store.verifyRevisions().isIntact)

            // An `other` with a footstep type is not a label.
            #expect(throws: StoreError.self) {
                try store.reviseTypes(
                    [NewTypeRevision(frameOffset: events[3].frameOffset, kind: .other, type: .running, confidence: 0.5)],
                    sessionId: session, reason: "x")
            }

            // Exported and imported, the kinds and their hashes travel.
            try store.endSession(session, at: referenceStart.addingTimeInterval(3600))
            let export = try store.exportSession(session, appVersion: "test")
            #expect(export.revisions.allSatisfy { $0.hashMatches })
            #expect(export.events[2].revisedKind == "footstep" && export.revisions[0].previousKind == "other")
            let copy = try FootstepDatabase.open(path: dir + "/copy.db")
            try copy.importExports([export], source: "export.json")
            #expect(try copy.verifyRevisions().isIntact)
            #expect(try copy.events(EventFilter(kind: .footstep)).items.count == footstepsBefore)
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

    /// The attack of issue 69: an event's only revision deleted and its revised columns cleared, so that the
    /// `other` it was revised to reads as a footstep again. Every link that remains is sound; the revision head
    /// (the last revision ever stored) names the one that is gone.
    @Test func aRevisionRemovedWithItsTracesIsNamedByTheHead() throws {
        try withTemporaryDirectory { dir in
            let (store, session, events) = try Self.store(in: dir)
            let path = dir + "/footstepd.db"
            let stored = try store.reviseTypes(
                [
                    NewTypeRevision(frameOffset: events[0].frameOffset, kind: .other, type: .unknown, confidence: 0.8),
                    NewTypeRevision(frameOffset: events[4].frameOffset, type: .running, confidence: 0.7),
                ], sessionId: session, reason: "bout typer")
            #expect(try store.verifyRevisions().isIntact)
            try tamper(path, "DELETE FROM typeRevision WHERE id = ?", [stored[0].id!])
            try tamper(
                path,
                "UPDATE event SET revisedKind = NULL, revisedType = NULL, revisedConfidence = NULL, revisionHash = NULL WHERE id = ?",
                [events[0].id!])
            let report = try store.verifyRevisions()
            #expect(report.alteredRevisionIds.isEmpty && report.brokenLinkRevisionIds.isEmpty)
            #expect(report.mismatchedEventIds.isEmpty)
            #expect(report.missingRevisionIds == [stored[0].id!])
            #expect(!report.isIntact)
            #expect(report.description.contains("revision \(stored[0].id!) missing"))
            #expect(try store.verifyEvidence().isIntact == false)
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
