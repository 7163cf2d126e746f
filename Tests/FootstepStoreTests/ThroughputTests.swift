import Foundation
import FootstepStore
import Testing

@Suite struct ThroughputTests {
    /// Not a timed assertion: prints the append rate (debug builds are 2.5–3× slower than release).
    @Test func append100000EventsInBatchesOf50() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            let total = 100_000
            let batches = (0..<(total / 50)).map { batch in
                (0..<50).map { makeEvent(session: session.id!, index: batch * 50 + $0) }
            }
            let clock = ContinuousClock()
            let appendTime = try clock.measure {
                for batch in batches { try store.appendEvents(batch) }
            }
            var report: ChainReport?
            let verifyTime = try clock.measure { report = try store.verifyChain() }
            let seconds = Double(appendTime.components.seconds) + Double(appendTime.components.attoseconds) / 1e18
            print(
                "FootstepStore throughput: \(total) events in \(total / 50) transactions of 50: \(appendTime) "
                    + "(\(Int(Double(total) / seconds)) events/s, \(String(format: "%.2f", seconds / Double(total / 50) * 1000)) ms per batch); "
                    + "verifyChain: \(verifyTime)")
            #expect(report?.isIntact == true)
            #expect(report?.checkedEvents == total)
        }
    }
}
