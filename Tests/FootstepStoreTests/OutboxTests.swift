import FootstepCore
import Foundation
import FootstepStore
import GRDB
import Testing

/// The MQTT outbox: rows queued by the store's own transactions while it is enabled, removed by the publisher,
/// bounded by dropping level rows only.
@Suite("MQTT outbox")
struct OutboxTests {
    @Test func everyStoredRecordIsQueuedInOrderWhileEnabled() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            try store.setOutbox(enabled: true)
            let session = try store.createSession(
                startedAt: referenceStart, device: "hw:1,0", sampleRate: 16_000, timeZone: "UTC", title: "upstairs")
            let ids = try store.appendEvents((0..<3).map { makeEvent(session: session.id!, index: $0, type: .heelStrike) })
            let events = try store.events(ids: ids)
            try store.reviseTypes(
                [NewTypeRevision(frameOffset: events[1].frameOffset, type: .stomping, confidence: 0.8)],
                sessionId: session.id!, reason: "bout vote")
            try store.addGap(
                sessionId: session.id!, from: referenceStart.addingTimeInterval(5), to: referenceStart.addingTimeInterval(9),
                reason: "device lost")
            try store.appendLevels([
                LevelMinuteRecord(
                    sessionId: session.id!, startedAt: referenceStart, seconds: 60, laeq: 31, lceq: 45, lafMax: 52,
                    lafMin: 25, la10: 35, la90: 27)
            ])
            try store.endSession(session.id!, at: referenceStart.addingTimeInterval(120))

            let queued = try store.outbox()
            #expect(queued.map(\.topic) == [.session, .event, .event, .event, .revision, .gap, .levels, .session])
            #expect(queued.map(\.id) == queued.map(\.id).sorted())
            #expect(queued.allSatisfy { $0.sessionId == session.id })
            // The session's start and end are two rows, each with the status it had then.
            guard case let .session(_, started) = queued.first?.item, case let .session(ended, status) = queued.last?.item
            else {
                Issue.record("no session rows: \(queued.map(\.topic))")
                return
            }
            #expect(started == .recording)
            #expect(status == .completed && ended.endedAt != nil)
            guard case let .event(first) = queued[1].item else {
                Issue.record("row 2 is not an event")
                return
            }
            #expect(first == events[0])
            guard case let .revision(revision) = queued[4].item else {
                Issue.record("row 5 is not a revision")
                return
            }
            #expect(revision.eventId == events[1].id && revision.type == .stomping)

            // The publisher pages through it and removes what the broker acknowledged.
            #expect(try store.outbox(after: queued[2].id, limit: 2).map(\.id) == [queued[3].id, queued[4].id])
            try store.removeFromOutbox(queued.prefix(3).map(\.id))
            let health = try store.outboxHealth()
            #expect(health.enabled && health.depth == 5 && health.dropped == 0)
            #expect(health.oldestQueuedAt != nil)
        }
    }

    @Test func nothingIsQueuedWhileDisabledAndDisablingEmptiesTheOutbox() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            try store.appendEvents([makeEvent(session: session.id!, index: 0)])
            #expect(try store.outbox().isEmpty)
            try store.setOutbox(enabled: true)
            try store.appendEvents([makeEvent(session: session.id!, index: 1)])
            #expect(try store.outbox().count == 1)
            #expect(try store.setOutbox(enabled: false) == 1)
            #expect(try store.outbox().isEmpty)
            #expect(try store.outboxHealth().enabled == false)
        }
    }

    @Test func aDeletedSessionsEventsAreGoneAndItsTombstoneIsQueued() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            try store.setOutbox(enabled: true)
            try store.appendEvents((0..<4).map { makeEvent(session: session.id!, index: $0) })
            try store.endSession(session.id!, at: referenceStart.addingTimeInterval(60))
            try store.deleteSession(session.id!, reason: "recorded the wrong flat")
            let queued = try store.outbox()
            #expect(queued.map(\.topic) == [.event, .event, .event, .event, .session, .deletion])
            #expect(queued.prefix(5).allSatisfy { $0.item == .gone })
            guard case let .deletion(tombstone) = queued.last?.item else {
                Issue.record("no tombstone")
                return
            }
            #expect(tombstone.eventCount == 4 && tombstone.reason == "recorded the wrong flat")
        }
    }

    @Test func trimmingDropsOnlyTheOldestLevelRowsAndCountsThem() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            try store.setOutbox(enabled: true)
            let minutes = (0..<6).map { minute in
                LevelMinuteRecord(
                    sessionId: session.id!, startedAt: referenceStart.addingTimeInterval(Double(minute) * 60), seconds: 60,
                    laeq: 30, lceq: 40, lafMax: 50, lafMin: 25, la10: 33, la90: 27)
            }
            try store.appendLevels(Array(minutes.prefix(3)))
            try store.appendEvents((0..<3).map { makeEvent(session: session.id!, index: $0) })
            try store.appendLevels(Array(minutes.suffix(3)))
            #expect(try store.trimOutbox(maximumRows: 20) == 0)
            #expect(try store.trimOutbox(maximumRows: 5) == 4)
            let left = try store.outbox()
            #expect(left.map(\.topic) == [.event, .event, .event, .levels, .levels])
            // Events are never dropped, even beyond the bound.
            #expect(try store.trimOutbox(maximumRows: 1) == 2)
            #expect(try store.outbox().map(\.topic) == [.event, .event, .event])
            #expect(try store.outboxHealth().dropped == 6)
        }
    }
}
