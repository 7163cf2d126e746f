import Dispatch
import Foundation
import FootstepStore
import GRDB
import Testing

@Suite struct ConcurrencyTests {
    /// WAL + DatabasePool: while another connection holds an open write transaction, the
    /// store's reads see the last committed state (a consistent snapshot) without blocking.
    @Test func readerSeesAConsistentSnapshotWhileAWriteTransactionIsOpen() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let (store, session) = try makeStoreWithSession(in: dir)
            try store.appendEvents((0..<100).map { makeEvent(session: session.id!, index: $0) })
            let sessionId = session.id!

            let inserted = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let committed = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                do {
                    let other = try DatabaseQueue(path: path)
                    try other.inTransaction(.immediate) { db in
                        for minute in 0..<50 {
                            try db.execute(
                                sql: """
                                    INSERT INTO levelMinute (sessionId, startedAt, seconds, laeq, lceq, lafMax, lafMin, la10, la90)
                                    VALUES (?, ?, 60, 30, 40, 50, 20, 35, 25)
                                    """,
                                arguments: [sessionId, referenceStart.addingTimeInterval(Double(minute) * 60)])
                        }
                        inserted.signal()
                        release.wait()
                        return .commit
                    }
                    try other.close()
                } catch {
                    Issue.record("writer failed: \(error)")
                    inserted.signal()
                }
                committed.signal()
            }
            inserted.wait()

            let clock = ContinuousClock()
            let start = clock.now
            let levelsDuringWrite = try store.levels().items.count
            let eventsDuringWrite = try store.events(EventFilter(limit: 10_000)).items.count
            let chainDuringWrite = try store.verifyChain()
            let elapsed = clock.now - start
            release.signal()
            committed.wait()

            #expect(levelsDuringWrite == 0)
            #expect(eventsDuringWrite == 100)
            #expect(chainDuringWrite.isIntact)
            #expect(elapsed < .seconds(2), "reads were blocked by the open write transaction")
            #expect(try store.levels().items.count == 50)
        }
    }

    /// Reads racing a large append see either none or all of the batch, never part of it.
    @Test func concurrentReadsNeverSeeAHalfWrittenBatch() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            let sessionId = session.id!
            let batch = (0..<5_000).map { makeEvent(session: sessionId, index: $0) }
            let writer = Task.detached { try store.appendEvents(batch) }
            var observed: Set<Int> = []
            for _ in 0..<200 {
                observed.insert(try store.session(sessionId)?.eventCount ?? -1)
                await Task.yield()
            }
            _ = try await writer.value
            observed.insert(try store.session(sessionId)?.eventCount ?? -1)
            #expect(observed.isSubset(of: [0, 5_000]), "saw partial counts \(observed.sorted())")
        }
    }
}
