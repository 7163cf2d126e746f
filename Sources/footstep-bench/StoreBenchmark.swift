import FootstepCore
import FootstepStore
import Foundation

/// `footstep-bench store [DB_PATH] [EVENTS]`: store throughput as the daemon
/// uses it: events appended through `appendEvents` (validation, SHA-256 chain,
/// one transaction per batch) on a real WAL database file, in batches of 1
/// (a live event stored at once), 10 (a busy second) and 1,000 (recovery or
/// import), then a one-day time-range read, then the review of a range of 500
/// events. Printed as events/s and milliseconds.
enum StoreBenchmark {
    static func run(arguments: [String]) throws {
        let path = arguments.first ?? NSTemporaryDirectory() + "/footstep-bench-store-\(getpid()).db"
        let total = arguments.count > 1 ? Int(arguments[1]) ?? 20_000 : 20_000
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let database = try FootstepDatabase.open(path: path)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let session = try database.createSession(startedAt: start, device: "bench", sampleRate: 16_000)
        var offset: Int64 = 0
        func batch(_ count: Int) -> [NewEvent] {
            (0..<count).map { _ in
                offset += 8_000
                return NewEvent(
                    sessionId: session.id!, frameOffset: offset, timestamp: start.addingTimeInterval(Double(offset) / 16_000),
                    measurements: EventMeasurements(
                        duration: 0.12, kind: .footstep, type: .heelStrike, confidence: 0.8, intensity: .medium,
                        laMax: 48.5, lcMax: 60.1, peakDBFS: -21, sel: 41.2, backgroundLA: 30))
            }
        }
        print("store throughput on \(path) (WAL, SHA-256 chain), release build:")
        for size in [1, 10, 1000] {
            let rounds = max(1, (size == 1 ? total / 10 : total) / size)
            let batches = (0..<rounds).map { _ in batch(size) }
            let began = ContinuousClock.now
            for events in batches { try database.appendEvents(events) }
            let seconds = seconds(ContinuousClock.now - began)
            print(String(
                format: "  batches of %4d: %7d events in %6.3f s = %9.0f events/s", size, rounds * size, seconds,
                Double(rounds * size) / seconds))
        }
        let began = ContinuousClock.now
        let page = try database.events(EventFilter(from: start, to: start.addingTimeInterval(86_400), limit: 10_000))
        print(String(format: "  one-day read of %d events: %.1f ms", page.items.count, seconds(ContinuousClock.now - began) * 1000))
        // A resident's review of a range ("everything from 23:10 to 23:40 is the radio"): 500 events, one write.
        let range = page.items.prefix(500)
        if let first = range.first, let last = range.last {
            let reviewer = Reviewer(uid: 1000, name: "bench")
            let reviewBegan = ContinuousClock.now
            let outcome = try database.review(
                .range(from: first.timestamp, to: last.timestamp.addingTimeInterval(0.001)), .reject, by: reviewer,
                reason: "the radio")
            print(String(
                format: "  review of a range of %d events (one transaction): %.1f ms (aim < 1000 ms)", outcome.reviews.count,
                seconds(ContinuousClock.now - reviewBegan) * 1000))
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
