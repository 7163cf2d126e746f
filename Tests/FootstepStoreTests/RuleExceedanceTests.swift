import FootstepCore
import Foundation
import GRDB
import Testing

@testable import FootstepStore

/// Noise rules checked as the store appends events and level minutes: each exceedance is stored, and queued for
/// MQTT, in the transaction that stores what exceeded it.
@Suite("Rule exceedances")
struct RuleExceedanceTests {
    /// 22:00–06:00, as the Korean standard's night.
    static let night = DailyWindow(start: 22 * 60, end: 6 * 60)

    static func step(_ session: Int64, second: Double, laMax: Double, kind: EventKind = .footstep) -> NewEvent {
        let frame = Int64(second * 16_000)
        return NewEvent(
            sessionId: session, audioFileId: nil, frameOffset: frame,
            timestamp: NewEvent.timestamp(anchor: referenceStart, frameOffset: frame, sampleRate: 16_000),
            measurements: EventMeasurements(
                duration: 0.1, kind: kind, type: .heelStrike, confidence: 0.8, intensity: .medium, laMax: laMax,
                lcMax: 60, peakDBFS: -30, sel: 40, backgroundLA: 28))
    }

    static func minute(_ session: Int64, index: Int, laeq: Double) -> LevelMinuteRecord {
        LevelMinuteRecord(
            sessionId: session, startedAt: referenceStart.addingTimeInterval(Double(index) * 60), seconds: 60, laeq: laeq,
            lceq: 50, lafMax: laeq + 10, lafMin: 25, la10: laeq + 2, la90: 27)
    }

    /// The exceedances of one rule, in order.
    static func named(_ rule: String, _ all: [RuleExceedanceRecord]) -> [RuleExceedanceRecord] {
        var rows: [RuleExceedanceRecord] = []
        for record in all where record.rule == rule { rows.append(record) }
        return rows
    }

    static let rules = [
        ReportRule(name: "loud step", metric: .lafmax, threshold: 50),
        ReportRule(name: "three loud an hour", metric: .lafmax, threshold: 50, minimumPerHour: 3),
        ReportRule(name: "busy hour", metric: .eventsPerHour, threshold: 4),
        ReportRule(name: "loud minute", metric: .laeq1min, threshold: 40),
        ReportRule(name: "loud at night", metric: .lafmax, threshold: 60, window: .night),
        ReportRule(name: "loud by day", metric: .lafmax, threshold: 60, window: .day),
    ]

    @Test func eventsMinutesAndHoursAreRecordedOnceAsTheyAreStored() throws {
        try withTemporaryDirectory { dir in
            let plain = try FootstepDatabase.open(path: dir + "/footstepd.db")
            try plain.setOutbox(enabled: true)
            try plain.addCalibration(measuredAt: referenceStart.addingTimeInterval(-3600), offsetDB: 94, method: "calibrator", reference: "x")
            let store = plain.checkingRules(RuleWatch(rules: Self.rules, quietHours: Self.night, zone: .utc))
            let session = try store.createSession(startedAt: referenceStart, device: "hw:1,0", sampleRate: 16_000, timeZone: "UTC").id!

            // 22:00:01 … : two loud steps, a quiet one, a loud other impact (65 dB, at night).
            try store.appendEvents([
                Self.step(session, second: 1, laMax: 55), Self.step(session, second: 2, laMax: 45),
                Self.step(session, second: 3, laMax: 52), Self.step(session, second: 4, laMax: 65, kind: .other),
            ])
            var found = try store.exceedances(session: session)
            #expect(Self.named("loud step", found).map(\.value) == [55, 52, 65])
            #expect(Self.named("loud step", found).map(\.cause) == ["footstep", "footstep", "other"])
            #expect(Self.named("loud step", found).allSatisfy { $0.eventId != nil && $0.threshold == 50 })
            // 22:00 is night: the night rule sees the 65 dB impact, the day rule nothing.
            #expect(Self.named("loud at night", found).map(\.value) == [65])
            #expect(!found.contains { $0.rule == "loud by day" })
            // Three loud events: the hour reached the count, once, with a footstep among them.
            let hour = try #require(found.first { $0.rule == "three loud an hour" })
            #expect(hour.value == 3 && hour.startedAt == referenceStart && hour.cause == "footstep" && hour.eventId == nil)
            // Three footsteps are not more than four.
            #expect(!found.contains { $0.rule == "busy hour" })

            // Two more footsteps in the same hour: the busy hour now, and the loud hour is not recorded again.
            try store.appendEvents([Self.step(session, second: 600, laMax: 58), Self.step(session, second: 601, laMax: 30)])
            found = try store.exceedances(session: session)
            #expect(Self.named("three loud an hour", found).count == 1)
            #expect(Self.named("busy hour", found).map(\.value) == [5])
            try store.appendEvents([Self.step(session, second: 700, laMax: 30)])
            #expect(Self.named("busy hour", try store.exceedances(session: session)).count == 1)

            // Minutes: a loud one with footsteps, a quiet one, a loud one without any impact (the background).
            try store.appendLevels([
                Self.minute(session, index: 0, laeq: 45), Self.minute(session, index: 1, laeq: 35),
                Self.minute(session, index: 30, laeq: 42),
            ])
            let minutes = Self.named("loud minute", try store.exceedances(session: session))
            #expect(minutes.map(\.value) == [45, 42])
            #expect(minutes.map(\.cause) == ["footstep", "background"])
            #expect(minutes.allSatisfy { $0.levelMinuteId != nil })

            // Each is queued for MQTT after what exceeded it, in the same transaction.
            let queued = try store.outbox()
            let exceedanceRows = queued.filter { $0.topic == .exceedance }
            #expect(try exceedanceRows.count == store.exceedances().count)
            let firstEvent = try #require(queued.firstIndex { $0.topic == .event })
            let firstExceedance = try #require(queued.firstIndex { $0.topic == .exceedance })
            #expect(firstEvent < firstExceedance)

            // A deleted session takes its exceedances with it.
            try store.endSession(session, at: referenceStart.addingTimeInterval(3600))
            try store.deleteSession(session, reason: "test")
            #expect(try store.exceedances().isEmpty)
            #expect(try store.outbox().allSatisfy { $0.topic != .exceedance || $0.item == .gone })
        }
    }

    @Test func levelRulesNeedACalibrationAndCountsDoNot() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
                .checkingRules(RuleWatch(rules: Self.rules, quietHours: Self.night, zone: .utc))
            let session = try store.createSession(startedAt: referenceStart, device: "hw:1,0", sampleRate: 16_000, timeZone: "UTC").id!
            try store.appendEvents((0..<6).map { Self.step(session, second: Double($0 + 1), laMax: 70) })
            try store.appendLevels([Self.minute(session, index: 0, laeq: 70)])
            // Uncalibrated levels are relative: only the footstep count is judged.
            #expect(try store.exceedances().map(\.rule) == ["busy hour"])
            // A configuration offset of 0 removes the calibration too.
            try store.addCalibration(
                measuredAt: referenceStart.addingTimeInterval(-60), offsetDB: 0, method: CalibrationRecord.configurationMethod,
                reference: CalibrationRecord.configurationReference)
            try store.appendLevels([Self.minute(session, index: 1, laeq: 70)])
            #expect(try store.exceedances().map(\.rule) == ["busy hour"])
        }
    }

    @Test func aStoreWithoutRulesRecordsNothing() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let session = try store.createSession(startedAt: referenceStart, device: "hw:1,0", sampleRate: 16_000, timeZone: "UTC").id!
            try store.appendEvents((0..<6).map { Self.step(session, second: Double($0 + 1), laMax: 90) })
            #expect(try store.exceedances().isEmpty)
        }
    }

    /// v9 rebuilds the outbox with its new topic: rows queued before it keep their ids and order, and a row queued
    /// after it never reuses an id.
    @Test func theMigrationKeepsTheOutboxAndItsIds() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/footstepd.db"
            let queue = try DatabaseQueue(path: path)
            try FootstepDatabase.migrator.migrate(queue, upTo: "v8")
            try queue.write { db in
                try db.execute(sql: "UPDATE outboxState SET enabled = 1")
                try db.execute(
                    sql: """
                        INSERT INTO session (startedAt, device, sampleRate, channels, timeZone, title, status)
                        VALUES ('2025-03-01 22:00:00.000', 'hw:1,0', 16000, 1, 'UTC', '', 'recording')
                        """)
                try db.execute(sql: "UPDATE session SET status = 'paused'")
                try db.execute(sql: "UPDATE session SET status = 'recording'")
                // Published: the last two rows; the sequence stays at 3.
                try db.execute(sql: "DELETE FROM outbox WHERE id > 1")
            }
            let before = try queue.read { db in try Row.fetchAll(db, sql: "SELECT id, topic FROM outbox") }
            #expect(before.count == 1)
            let oldId: Int64 = before[0]["id"]
            #expect(oldId == 1)
            try queue.close()

            let store = try FootstepDatabase.open(path: path)
            let rows = try store.outbox()
            #expect(rows.map(\.id) == [oldId] && rows.map(\.topic) == [.session])
            try store.setOutbox(enabled: true)
            try store.appendLevels([Self.minute(1, index: 0, laeq: 30)])
            #expect(try store.outbox().map(\.id) == [oldId, 4])
        }
    }
}
