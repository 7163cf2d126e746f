import Crypto
import FootstepCore
import Foundation
import FootstepStore
import GRDB
import Testing

@Suite struct ChainTests {
    @Test func appendedEventsFormAVerifyingChain() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            var ids: [Int64] = []
            for batch in 0..<4 {
                ids += try store.appendEvents((0..<25).map { makeEvent(session: session.id!, index: batch * 25 + $0) })
            }
            #expect(ids.count == 100)
            #expect(ids == ids.sorted())
            let report = try store.verifyChain()
            #expect(report.isIntact, "\(report)")
            #expect(report.checkedEvents == 100)
            #expect(report.headEventId == ids.last)

            let first = try #require(try store.event(ids[0]))
            #expect(first.previousHash == String(repeating: "0", count: 64))
            let second = try #require(try store.event(ids[1]))
            #expect(second.previousHash == first.hash)
            #expect(report.headHash == (try store.event(ids.last!))?.hash)
        }
    }

    /// The documented serialisation reproduces the stored hash (a golden check of the format).
    @Test func hashIsSHA256OfTheDocumentedSerialisation() throws {
        let store = try FootstepDatabase.inMemory()
        let session = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
        let event = NewEvent(
            sessionId: session.id!, frameOffset: 16_000, timestamp: referenceStart.addingTimeInterval(1.0004),
            measurements: EventMeasurements(
                duration: 0.1, kind: .footstep, type: .heelStrike, confidence: 0.8, intensity: .high, laMax: 50.25,
                lcMax: nil, peakDBFS: -26, sel: 43, backgroundLA: nil))
        let id = try store.appendEvents([event])[0]
        let stored = try #require(try store.event(id))
        let text = """
            footstepd.event.v1
            sessionId=\(session.id!)
            audioFileId=null
            frameOffset=16000
            timestamp=2025-03-01 22:00:01.000
            duration=3fb999999999999a
            kind=footstep
            type=heel_strike
            confidence=3fe999999999999a
            intensity=high
            laMax=4049200000000000
            lcMax=null
            peakDBFS=c03a000000000000
            sel=4045800000000000
            backgroundLA=null
            previousHash=0000000000000000000000000000000000000000000000000000000000000000
            """
        let expected = SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(stored.hash == expected)
    }

    @Test func changingOneByteOfAStoredFieldNamesThatRow() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let (store, session) = try makeStoreWithSession(in: dir)
            let ids = try store.appendEvents((0..<40).map { makeEvent(session: session.id!, index: $0) })

            // Last digit of one timestamp (one byte of TEXT).
            let victim = ids[17]
            try tamper(
                path,
                """
                UPDATE event SET timestamp = substr(timestamp, 1, length(timestamp) - 1)
                  || CASE substr(timestamp, -1) WHEN '0' THEN '1' ELSE '0' END
                WHERE id = ?
                """, [victim])
            var report = try store.verifyChain()
            #expect(!report.isIntact)
            #expect(report.alteredEvents.map(\.eventId) == [victim])
            #expect(report.breaks.isEmpty)
            #expect(report.description.contains("event \(victim) "))

            // One bit of a REAL (laMax → the next representable double) in another row.
            let second = ids[31]
            let laMax = try #require(try store.event(second)).laMax
            try tamper(path, "UPDATE event SET laMax = ? WHERE id = ?", [laMax.nextUp, second])
            report = try store.verifyChain()
            #expect(report.alteredEvents.map(\.eventId) == [victim, second])

            // A type change through a text value in a REAL column must not crash verification.
            try tamper(path, "UPDATE event SET confidence = 'high' WHERE id = ?", [ids[3]])
            report = try store.verifyChain()
            #expect(report.alteredEvents.map(\.eventId) == [ids[3], victim, second])
        }
    }

    @Test func deletingARowWithSQLIsDetectedAndNamed() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let (store, session) = try makeStoreWithSession(in: dir)
            let ids = try store.appendEvents((0..<30).map { makeEvent(session: session.id!, index: $0) })

            try tamper(path, "DELETE FROM event WHERE id = ?", [ids[10]])
            let report = try store.verifyChain()
            #expect(!report.isIntact)
            #expect(report.alteredEvents.isEmpty)
            #expect(report.breaks.count == 1)
            let gap = try #require(report.breaks.first)
            #expect(gap.kind == .eventsMissing)
            #expect(gap.afterEventId == ids[9])
            #expect(gap.beforeEventId == ids[11])
            #expect(report.description.contains("between id \(ids[9]) and id \(ids[11])"))
        }
    }

    @Test func deletingTheFirstOrLastRowsIsDetected() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let (store, session) = try makeStoreWithSession(in: dir)
            let ids = try store.appendEvents((0..<10).map { makeEvent(session: session.id!, index: $0) })

            try tamper(path, "DELETE FROM event WHERE id >= ?", [ids[8]])
            var report = try store.verifyChain()
            #expect(report.breaks.map(\.kind) == [.tailMissing])
            #expect(report.breaks.first?.afterEventId == ids[7])
            #expect(report.breaks.first?.beforeEventId == ids[9])

            try tamper(path, "DELETE FROM event WHERE id = ?", [ids[0]])
            report = try store.verifyChain()
            #expect(report.breaks.map(\.kind) == [.eventsMissing, .tailMissing])
            #expect(report.breaks.first?.afterEventId == nil)
            #expect(report.breaks.first?.beforeEventId == ids[1])
        }
    }

    @Test func rewritingALinkIsNamed() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let (store, session) = try makeStoreWithSession(in: dir)
            let ids = try store.appendEvents((0..<10).map { makeEvent(session: session.id!, index: $0) })
            // Someone overwrites one row's hash: that row no longer matches its content,
            // and the next row no longer links to it.
            try tamper(path, "UPDATE event SET hash = ? WHERE id = ?", [String(repeating: "a", count: 64), ids[4]])
            let report = try store.verifyChain()
            #expect(report.alteredEvents.map(\.eventId) == [ids[4]])
            #expect(report.breaks.map(\.kind) == [.linkRewritten])
            #expect(report.breaks.first?.afterEventId == ids[4])
            #expect(report.breaks.first?.beforeEventId == ids[5])
        }
    }

    @Test func noteAndClipEditsKeepTheChainValid() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            let ids = try store.appendEvents((0..<20).map { makeEvent(session: session.id!, index: $0) })
            let before = try store.verifyChain()
            try store.setEventNotes(ids[3], notes: "heavy boots, 23:40 — neighbour came home")
            try store.setEventNotes(ids[3], notes: "edited again")
            try store.setEventClip(ids[4], path: dir + "/clips/4.flac", sha256: String(repeating: "AB", count: 32))
            let bout = try store.appendBout(
                BoutRecord(sessionId: session.id!, startedAt: referenceStart, endedAt: referenceStart.addingTimeInterval(3),
                           steps: 5, cadence: 1.6, dominantType: .heelStrike, kind: .walking),
                eventIds: Array(ids[0..<5]))
            let after = try store.verifyChain()
            #expect(after.isIntact, "\(after)")
            #expect(after.headHash == before.headHash)
            #expect(try store.event(ids[3])?.notes == "edited again")
            #expect(try store.event(ids[2])?.boutId == bout.id)
            #expect(try store.clipChecksums().map(\.sha256) == [String(repeating: "ab", count: 32)])
            #expect(throws: StoreError.eventNotFound(999_999)) { try store.setEventNotes(999_999, notes: "x") }
        }
    }

    @Test func invalidEventsAreRejectedAsAWholeBatch() throws {
        let store = try FootstepDatabase.inMemory()
        let session = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
        var bad = makeEvent(session: session.id!, index: 1)
        bad.laMax = .nan
        #expect(throws: StoreError.self) { try store.appendEvents([makeEvent(session: session.id!, index: 0), bad]) }
        #expect(throws: StoreError.sessionNotFound(42)) { try store.appendEvents([makeEvent(session: 42, index: 0)]) }
        try store.endSession(session.id!, at: referenceStart.addingTimeInterval(10))
        #expect(throws: StoreError.sessionClosed(id: session.id!, status: .completed)) {
            try store.appendEvents([makeEvent(session: session.id!, index: 0)])
        }
        #expect(try store.events().items.isEmpty)
        #expect(try store.verifyChain().isIntact)
    }
}
