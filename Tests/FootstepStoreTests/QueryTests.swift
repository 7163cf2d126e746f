import FootstepCore
import Foundation
import FootstepStore
import Testing

@Suite struct QueryTests {
    @Test func cursorPaginationOver1000EventsReturnsEachExactlyOnce() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            var ids: [Int64] = []
            for batch in 0..<20 {
                var events = (0..<50).map { makeEvent(session: session.id!, index: batch * 50 + $0) }
                // Pairs of events with the same timestamp exercise the id tie-break.
                for i in stride(from: 1, to: events.count, by: 10) { events[i].timestamp = events[i - 1].timestamp }
                ids += try store.appendEvents(events)
            }
            for order in [TimeOrder.ascending, .descending] {
                var seen: [EventRecord] = []
                var filter = EventFilter(limit: 64, order: order)
                var pages = 0
                while true {
                    let page = try store.events(filter)
                    seen += page.items
                    pages += 1
                    guard let next = page.nextCursor else { break }
                    filter.after = next
                }
                #expect(pages == 16)
                #expect(seen.count == 1000)
                #expect(Set(seen.map(\.id)).count == 1000)
                let keys = seen.map { ($0.timestamp, $0.id!) }
                let sorted = zip(keys, keys.dropFirst()).allSatisfy { a, b in
                    order == .ascending ? (a.0, a.1) < (b.0, b.1) : (a.0, a.1) > (b.0, b.1)
                }
                #expect(sorted, "\(order) pages are not in (timestamp, id) order")
            }
        }
    }

    @Test func filtersSelectTheRightEvents() throws {
        let store = try FootstepDatabase.inMemory()
        let s1 = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
        let s2 = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
        try store.appendEvents((0..<200).map { makeEvent(session: $0 % 3 == 0 ? s1.id! : s2.id!, index: $0, kind: $0 % 7 == 0 ? .other : .footstep) })
        let all = try store.events(EventFilter(limit: 10_000)).items
        #expect(all.count == 200)

        let from = referenceStart.addingTimeInterval(20)
        let to = referenceStart.addingTimeInterval(80)
        let filter = EventFilter(sessionId: s1.id!, from: from, to: to, type: .running, kind: .footstep, minConfidence: 0.5, limit: 10_000)
        let expected = all.filter {
            $0.sessionId == s1.id! && $0.timestamp >= from && $0.timestamp < to && $0.type == .running
                && $0.kind == .footstep && $0.confidence >= 0.5
        }
        #expect(expected.count == 3)
        #expect(all.contains { $0.sessionId == s1.id! && $0.type == .running && $0.confidence < 0.5 })
        #expect(all.contains { $0.sessionId == s1.id! && $0.type == .running && $0.kind == .other })
        #expect(try store.events(filter).items.map(\.id) == expected.map(\.id))

        let counts = try store.eventCountsByType(from: referenceStart, to: referenceStart.addingTimeInterval(1_000))
        #expect(counts.values.reduce(0, +) == all.filter { $0.kind == .footstep }.count)
        for type in FootstepType.allCases {
            #expect(counts[type, default: 0] == all.filter { $0.kind == .footstep && $0.type == type }.count)
        }
        let london = try #require(TimeZone(identifier: "Europe/London"))
        let today = try store.eventCountsToday(timeZone: london, now: referenceStart.addingTimeInterval(600))
        #expect(today == counts)
        #expect(try store.eventCountsToday(timeZone: london, now: referenceStart.addingTimeInterval(86_400 * 2)).isEmpty)
    }

    @Test func levelsAndBoutsAreRangedAndPaginated() throws {
        let store = try FootstepDatabase.inMemory()
        let session = try store.createSession(startedAt: referenceStart, device: "hw:1", sampleRate: 16_000)
        try store.appendLevels((0..<120).map {
            LevelMinuteRecord(sessionId: session.id!, startedAt: referenceStart.addingTimeInterval(Double($0) * 60),
                              laeq: 30 + Double($0 % 5), lceq: 40, lafMax: 50, lafMin: 20, la10: 35, la90: 25)
        })
        for i in 0..<10 {
            try store.appendBout(BoutRecord(
                sessionId: session.id!, startedAt: referenceStart.addingTimeInterval(Double(i) * 300),
                endedAt: referenceStart.addingTimeInterval(Double(i) * 300 + 4), steps: 6, cadence: 1.5,
                dominantType: .heelStrike, kind: i % 2 == 0 ? .walking : .running))
        }
        let hour = try store.levels(from: referenceStart, to: referenceStart.addingTimeInterval(3600))
        #expect(hour.items.count == 60)
        #expect(hour.nextCursor == nil)
        var cursor: TimeCursor?
        var collected: [LevelMinuteRecord] = []
        repeat {
            let page = try store.levels(session: session.id!, after: cursor, limit: 25)
            collected += page.items
            cursor = page.nextCursor
        } while cursor != nil
        #expect(collected.map(\.startedAt) == collected.map(\.startedAt).sorted())
        #expect(collected.count == 120)
        let bouts = try store.bouts(from: referenceStart.addingTimeInterval(600), to: referenceStart.addingTimeInterval(1500), session: session.id!)
        #expect(bouts.items.map(\.kind) == [.walking, .running, .walking])
    }
}
