import FootstepCore
import Foundation
import FootstepStore
import Testing

@Suite struct SessionTests {
    @Test func closeInterruptedSessionsEndsThemAtTheirLatestData() throws {
        try withTemporaryDirectory { dir in
            let store = try FootstepDatabase.open(path: dir + "/footstepd.db")
            let t0 = referenceStart
            // A: latest data is an event (at 100 s, 0.12 s long).
            let a = try store.createSession(startedAt: t0, device: "hw:1", sampleRate: 16_000)
            try store.appendLevels([LevelMinuteRecord(sessionId: a.id!, startedAt: t0, seconds: 60, laeq: 30, lceq: 40, lafMax: 50, lafMin: 20, la10: 35, la90: 25)])
            var event = makeEvent(session: a.id!, index: 0)
            event.frameOffset = 1_600_000
            event.timestamp = t0.addingTimeInterval(100)
            try store.appendEvents([event])
            // B (paused): latest data is an audio file: starts at +1000 s, 48,000 frames at 16 kHz → +1003 s.
            let b = try store.createSession(startedAt: t0.addingTimeInterval(1000), device: "hw:1", sampleRate: 16_000)
            let file = try store.addAudioFile(sessionId: b.id!, path: dir + "/b.wav", startedAt: t0.addingTimeInterval(1000), startFrame: 0, sampleRate: 16_000, format: .wav)
            try store.updateAudioFileFrames(file.id!, frames: 48_000, bytes: 96_044)
            try store.appendLevels([LevelMinuteRecord(sessionId: b.id!, startedAt: t0.addingTimeInterval(1000), seconds: 2, laeq: 30, lceq: 40, lafMax: 50, lafMin: 20, la10: 35, la90: 25)])
            try store.setSessionStatus(b.id!, .paused)
            // C: latest data is a level minute (+2000 s + 60 s).
            let c = try store.createSession(startedAt: t0.addingTimeInterval(2000), device: "hw:1", sampleRate: 16_000)
            try store.appendLevels([LevelMinuteRecord(sessionId: c.id!, startedAt: t0.addingTimeInterval(2000), seconds: 60, laeq: 30, lceq: 40, lafMax: 50, lafMin: 20, la10: 35, la90: 25)])
            // D: no data at all → ends at its start.
            let d = try store.createSession(startedAt: t0.addingTimeInterval(3000), device: "hw:1", sampleRate: 16_000)
            // E: completed normally → untouched.
            let e = try store.createSession(startedAt: t0.addingTimeInterval(4000), device: "hw:1", sampleRate: 16_000)
            try store.endSession(e.id!, at: t0.addingTimeInterval(4010))

            let closed = try store.closeInterruptedSessions()
            #expect(closed == [a.id!, b.id!, c.id!, d.id!])
            func end(_ id: Int64?) throws -> TimeInterval? {
                try store.session(id!)?.session.endedAt?.timeIntervalSince(t0)
            }
            #expect(abs(try #require(try end(a.id)) - 100.12) < 0.002)
            #expect(abs(try #require(try end(b.id)) - 1003) < 0.002)
            #expect(abs(try #require(try end(c.id)) - 2060) < 0.002)
            #expect(abs(try #require(try end(d.id)) - 3000) < 0.002)
            #expect(abs(try #require(try end(e.id)) - 4010) < 0.002)
            for id in closed {
                #expect(try store.session(id)?.session.status == .interrupted)
                #expect(try store.session(id)?.session.endReason == SessionRecord.interruptedReason)
            }
            #expect(try store.session(e.id!)?.session.status == .completed)
            #expect(try store.session(e.id!)?.session.endReason == nil)
            #expect(try store.closeInterruptedSessions().isEmpty)

            // An end known outside the database (a repaired audio file) is used when later.
            let f = try store.createSession(startedAt: t0.addingTimeInterval(5000), device: "hw:1", sampleRate: 16_000)
            try store.closeInterruptedSessions { $0.id == f.id ? t0.addingTimeInterval(5042) : nil }
            #expect(abs(try #require(try end(f.id)) - 5042) < 0.002)
        }
    }

    @Test func sessionLifecycleAndSummaries() throws {
        try withTemporaryDirectory { dir in
            let (store, session) = try makeStoreWithSession(in: dir)
            let id = session.id!
            try store.renameSession(id, title: "Flat 3, week 1")
            try store.setSessionNotes(id, notes: "mic on the bookshelf")
            try store.setSessionStatus(id, .paused)
            try store.setSessionStatus(id, .recording)
            try store.addGap(sessionId: id, from: referenceStart.addingTimeInterval(10), to: referenceStart.addingTimeInterval(12.5), reason: "USB microphone unplugged")
            let file = try store.addAudioFile(sessionId: id, path: dir + "/a.flac", startedAt: referenceStart, startFrame: 0, sampleRate: 16_000, format: .flac)
            try store.closeAudioFile(file.id!, sha256: String(repeating: "F", count: 64), frames: 160_000, bytes: 200_000)
            #expect(throws: StoreError.self) { try store.updateAudioFileFrames(file.id!, frames: 1, bytes: 1) }
            try store.appendEvents((0..<7).map { makeEvent(session: id, index: $0, kind: $0 == 0 ? .other : .footstep) })
            try store.endSession(id, at: referenceStart.addingTimeInterval(3600))
            #expect(throws: StoreError.sessionClosed(id: id, status: .completed)) { try store.setSessionStatus(id, .recording) }

            let summary = try #require(try store.session(id))
            #expect(summary.session.title == "Flat 3, week 1")
            #expect(summary.session.notes == "mic on the bookshelf")
            #expect(summary.session.timeZone == "Europe/London")
            #expect(summary.eventCount == 7)
            #expect(summary.footstepCount == 6)
            #expect(summary.audioBytes == 200_000)
            #expect(summary.gapCount == 1)
            #expect(abs(summary.gapSeconds - 2.5) < 0.01)
            #expect(summary.duration == 3600)
            #expect(try store.sessions().map(\.id) == [id])
            #expect(try store.audioFileChecksums().map(\.sha256) == [String(repeating: "f", count: 64)])
            #expect(try store.gaps(session: id).first?.reason == "USB microphone unplugged")
            #expect(try store.lastEventTime(session: id) != nil)
            #expect(throws: StoreError.self) { try store.createSession(startedAt: referenceStart, device: "x", sampleRate: 16_000, timeZone: "Mars/Olympus") }
        }
    }

    @Test func calibrationsAreKeptInOrder() throws {
        let store = try FootstepDatabase.inMemory()
        #expect(try store.latestCalibration() == nil)
        try store.addCalibration(measuredAt: referenceStart, offsetDB: 93.5, method: "94 dB calibrator", reference: "CAL200 #1234")
        try store.addCalibration(measuredAt: referenceStart.addingTimeInterval(86_400), offsetDB: 93.7, method: "94 dB calibrator", reference: "CAL200 #1234")
        #expect(try store.latestCalibration()?.offsetDB == 93.7)
        #expect(try store.calibrations().count == 2)
    }
}
