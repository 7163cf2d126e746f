import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepTesting
import FootstepStore
import Foundation
import Testing

@testable import FootstepDaemon

/// The events a kill caught in memory: their audio is on disk, their rows are
/// not. Start-up recovery analyses the file's tail and appends them.
@Suite struct TailRecoveryTests {
    @Test func theEventsTheKillCaughtAreAppendedWithANote() throws {
        let directory = try TemporaryDirectory()
        // 40 s of a walk, written as the daemon writes its rolling file.
        let path = directory.appending("session-1.wav")
        let source = try SyntheticSource(spec: "walking:seed=4,duration=40")
        let writer = try AudioFileWriter(path: path, format: source.format, container: .wav)
        var buffer = [Float](repeating: 0, count: 4096 * source.format.channels)
        var frames: Int64 = 0
        while true {
            let count = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            if count == 0 { break }
            try buffer.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[..<(count * source.format.channels)])) }
            frames += Int64(count)
        }
        try writer.close()
        source.close()

        let analysis = AnalysisConfiguration()
        let clean = try FileAnalysis.analyse(path: path, configuration: analysis).events
        try #require(clean.count > 20)
        // The kill came after the first half of the events was stored, all but one: the
        // recovery does not count on the store missing only a tail (an event is reported up
        // to `maximumEventDelay` after its onset).
        let keep = clean.count / 2
        let held = keep - 2
        let lead = Double(clean[keep - 1].onsetFrame - clean[held].onsetFrame) / 16000
        try #require(lead > 0.2 && lead < analysis.maximumEventDelay)
        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let startedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let session = try database.createSession(startedAt: startedAt, device: "demo", sampleRate: 16000)
        let file = try database.addAudioFile(
            sessionId: session.id!, path: path, startedAt: startedAt, startFrame: 0, sampleRate: 16000, format: .wav)
        try database.updateAudioFileFrames(file.id!, frames: frames, bytes: 0)
        func row(_ event: AnalyzedEvent, notes: String = "") -> NewEvent {
            NewEvent(
                event, sessionId: session.id!, audioFileId: file.id, frameOffset: event.onsetFrame,
                timestamp: NewEvent.timestamp(anchor: startedAt, frameOffset: event.onsetFrame, sampleRate: 16000), notes: notes)
        }
        _ = try database.appendEvents(clean.prefix(keep).indices.filter { $0 != held }.map { row(clean[$0]) })

        let recovery = TailRecovery(
            database: database, analysis: analysis, model: { try FootstepModel.bundled() },
            logger: DaemonTestSupport.quietLogger)
        let recovered = try recovery.recover(session: session.id!)

        let stored = try database.events(EventFilter(sessionId: session.id!, limit: EventFilter.maximumLimit)).items
        let appended = stored.filter { $0.notes == TailRecovery.note }
        #expect(recovered == appended.count)
        // The tail is analysed from 20 s before the last stored event: the same events come out,
        // at the same frames (within a detector frame), with the same labels; the held one too.
        let missing = [clean[held]] + clean.suffix(from: keep)
        #expect(abs(appended.count - missing.count) <= 1, "recovered \(appended.count) of \(missing.count)")
        var matched = 0
        for event in missing {
            if let twin = appended.first(where: { abs($0.frameOffset - event.onsetFrame) <= 160 }) {
                matched += 1
                #expect(twin.kind == event.kind)
            }
        }
        #expect(matched >= missing.count - 1)
        #expect(appended.contains { abs($0.frameOffset - clean[held].onsetFrame) <= 160 })
        #expect(appended.allSatisfy { $0.frameOffset > clean[held - 1].onsetFrame }, "nothing stored is appended again")
        #expect(try database.verifyChain().isIntact)
        // A second start-up finds nothing more to recover.
        #expect(try recovery.recover(session: session.id!) == 0)
    }
}
