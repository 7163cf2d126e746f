import FootstepCore
import Foundation
import FootstepStore
import GRDB
import Testing

@Suite struct DeletionTests {
    @Test func deleteSessionRemovesEverythingOfItAndReturnsItsFiles() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let store = try FootstepDatabase.open(path: path)
            // Three sessions; the middle one is deleted. Sessions 1 and 2 overlap in time so
            // their events interleave in id order (two runs → two tombstones).
            let s1 = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000, title: "one")
            let s2 = try store.createSession(startedAt: referenceStart, device: "hw:2", sampleRate: 16_000, title: "two")
            let file = try store.addAudioFile(
                sessionId: s2.id!, path: dir + "/s2.flac", startedAt: referenceStart, startFrame: 0, sampleRate: 16_000,
                format: .flac)
            try store.appendEvents((0..<10).map { makeEvent(session: s1.id!, index: $0) })
            let s2ids = try store.appendEvents((0..<10).map { makeEvent(session: s2.id!, index: $0, audioFileId: file.id!) })
            try store.appendEvents((10..<20).map { makeEvent(session: s1.id!, index: $0) })
            try store.appendEvents((10..<15).map { makeEvent(session: s2.id!, index: $0) })
            try store.setEventClip(s2ids[2], path: dir + "/clips/a.flac", sha256: String(repeating: "0", count: 64))
            try store.appendLevels((0..<3).map {
                LevelMinuteRecord(sessionId: s2.id!, startedAt: referenceStart.addingTimeInterval(Double($0) * 60),
                                  laeq: 30, lceq: 40, lafMax: 50, lafMin: 20, la10: 35, la90: 25)
            })
            try store.appendBout(
                BoutRecord(sessionId: s2.id!, startedAt: referenceStart, endedAt: referenceStart.addingTimeInterval(2),
                           steps: 3, cadence: 1.5, dominantType: .stomping, kind: .walking),
                eventIds: Array(s2ids[0..<3]))
            try store.addGap(sessionId: s2.id!, from: referenceStart, to: referenceStart.addingTimeInterval(5), reason: "usb")
            try store.closeAudioFile(file.id!, sha256: String(repeating: "1", count: 64), frames: 16_000, bytes: 1000)
            try store.endSession(s1.id!, at: referenceStart.addingTimeInterval(60))
            try store.endSession(s2.id!, at: referenceStart.addingTimeInterval(60))
            let s3 = try store.createSession(startedAt: referenceStart.addingTimeInterval(100), device: "hw:1", sampleRate: 16_000)
            try store.appendEvents((0..<5).map { makeEvent(session: s3.id!, index: $0) })

            #expect(throws: StoreError.sessionOpen(id: s3.id!, status: .recording)) { try store.deleteSession(s3.id!) }
            let deletion = try store.deleteSession(s2.id!)
            #expect(deletion.audioPaths == [dir + "/s2.flac"])
            #expect(deletion.clipPaths == [dir + "/clips/a.flac"])
            #expect(deletion.eventCount == 15)
            #expect(deletion.chainDeletions.count == 2)

            #expect(try store.session(s2.id!) == nil)
            for table in ["event", "levelMinute", "bout", "sessionGap", "audioFile"] {
                let count = try store.reader.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE sessionId = ?", arguments: [s2.id!])
                }
                #expect(count == 0, "\(table) still has rows of the deleted session")
            }
            #expect(try store.session(s1.id!)?.eventCount == 20)
            #expect(try store.session(s3.id!)?.eventCount == 5)

            let report = try store.verifyChain()
            #expect(report.isIntact, "\(report)")
            #expect(report.checkedEvents == 25)
            #expect(report.recordedDeletions.count == 2)
            #expect(report.description.contains("recorded deletion"))

            // New events still chain on after the deletion; then delete the first session too
            // (its runs are now adjacent to recorded deletions: the bridges compose).
            try store.appendEvents((5..<8).map { makeEvent(session: s3.id!, index: $0) })
            try store.deleteSession(s1.id!)
            #expect(try store.verifyChain().isIntact)

            // A silent deletion is still found next to recorded ones.
            let remaining = try store.events(EventFilter(sessionId: s3.id!)).items.map { $0.id! }
            try tamper(path, "DELETE FROM event WHERE id = ?", [remaining[3]])
            let tampered = try store.verifyChain()
            #expect(tampered.breaks.map(\.afterEventId) == [remaining[2]])
            #expect(tampered.breaks.map(\.beforeEventId) == [remaining[4]])
        }
    }

    @Test func deletingTheNewestSessionKeepsTheChainVerifiable() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let s1 = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
            try store.appendEvents((0..<5).map { makeEvent(session: s1.id!, index: $0) })
            try store.endSession(s1.id!, at: referenceStart.addingTimeInterval(10))
            let s2 = try store.createSession(startedAt: referenceStart.addingTimeInterval(20), device: "hw:1", sampleRate: 16_000)
            try store.appendEvents((0..<5).map { makeEvent(session: s2.id!, index: $0) })
            try store.endSession(s2.id!, at: referenceStart.addingTimeInterval(30), status: .interrupted)
            try store.deleteSession(s2.id!)  // the tail of the chain
            #expect(try store.verifyChain().isIntact)
            let s3 = try store.createSession(startedAt: referenceStart.addingTimeInterval(40), device: "hw:1", sampleRate: 16_000)
            try store.appendEvents((0..<5).map { makeEvent(session: s3.id!, index: $0) })
            #expect(try store.verifyChain().isIntact)
            try store.endSession(s3.id!, at: referenceStart.addingTimeInterval(50))
            try store.deleteSession(s1.id!)  // the head
            try store.deleteSession(s3.id!)  // everything
            let report = try store.verifyChain()
            #expect(report.isIntact, "\(report)")
            #expect(report.checkedEvents == 0)
            #expect(report.recordedDeletions.count == 3)
        }
    }

    @Test func deletingASessionWithoutEventsLeavesATombstoneAndTheChainIntact() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let s1 = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
            try store.appendEvents((0..<3).map { makeEvent(session: s1.id!, index: $0) })
            try store.endSession(s1.id!, at: referenceStart.addingTimeInterval(10))
            let empty = try store.createSession(
                startedAt: referenceStart.addingTimeInterval(20), device: "hw:1", sampleRate: 16_000, title: "quiet")
            try store.endSession(empty.id!, at: referenceStart.addingTimeInterval(30))
            let head = try store.verifyChain().headHash

            let deletion = try store.deleteSession(empty.id!, reason: "test")
            #expect(deletion.eventCount == 0)
            let tombstone = try #require(deletion.chainDeletions.first)
            #expect(deletion.chainDeletions.count == 1)
            #expect(tombstone.sessionId == empty.id! && tombstone.sessionTitle == "quiet" && tombstone.reason == "test")
            #expect(tombstone.eventCount == 0 && tombstone.previousHash == head && tombstone.lastHash == head)

            // The chain goes on as before, and the deletion is in the audit trail.
            let s3 = try store.createSession(startedAt: referenceStart.addingTimeInterval(40), device: "hw:1", sampleRate: 16_000)
            try store.appendEvents((0..<3).map { makeEvent(session: s3.id!, index: $0) })
            let report = try store.verifyChain()
            #expect(report.isIntact, "\(report)")
            #expect(report.checkedEvents == 6)
            #expect(report.recordedDeletions.map(\.sessionId) == [empty.id!])
        }
    }
}
