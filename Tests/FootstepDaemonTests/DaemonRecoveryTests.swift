import FootstepAudio
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

@Suite("Start-up recovery of files the store never heard of")
struct DaemonRecoveryTests {
    @Test func anUnregisteredFileIsRegisteredAndMissingClipsAreCutFromIt() throws {
        let directory = try TemporaryDirectory()
        let audio = directory.appending("audio")
        let clips = directory.appending("clips")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let session = try database.createSession(startedAt: start, device: "test", sampleRate: 16000)
        // Killed right after creating its first file: the file exists, the store has no row.
        let path = "\(audio)/\(RollingAudioWriter.fileName(startingAt: start, sessionId: session.id!, container: .wav))"
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .wav)
        let samples = (0..<80000).map { Float(sin(Double($0) * 0.01) * 0.25) }
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let ids = try database.appendEvents([
            NewEvent(
                sessionId: session.id!, frameOffset: 40000, timestamp: start.addingTimeInterval(2.5),
                measurements: EventMeasurements(
                    duration: 0.1, kind: .footstep, type: .stomping, confidence: 0.9, intensity: .high, laMax: 60,
                    peakDBFS: -12, sel: 50))
        ])

        let report = try StartupRecovery(
            database: database, audioDirectory: audio, clipDirectory: clips, logger: DaemonTestSupport.quietLogger
        ).run()
        #expect(report.registeredFiles == [path])
        #expect(report.interruptedSessions == [session.id!])
        #expect(report.recoveredClips == 1)
        let file = try #require(try database.audioFiles(session: session.id!).first)
        #expect(file.path == path && file.startFrame == 0 && file.frames == 80000 && file.closedAt != nil)
        #expect(file.sha256 == (try FileChecksum.sha256(ofFileAt: path)))
        // The clip: 2 s before the onset to the end of the audio (3 s after would be past it).
        let event = try #require(try database.event(ids[0]))
        let clip = database.resolve(try #require(event.clipPath))
        #expect(clip.hasPrefix("\(clips)/2026-01-01/"))
        #expect(event.clipSha256 == (try FileChecksum.sha256(ofFileAt: clip)))
        let cut = try DaemonTestSupport.samples(clip)
        let recorded = try DaemonTestSupport.samples(path)
        #expect(cut.count == 80000 - 8000)
        #expect(cut == Array(recorded[8000..<80000]))
    }

    /// Killed after an event was stored and before the audio it lies in left the
    /// encoder: the event reaches 0.175 s past the file's end, and start-up records
    /// as a gap without audio the part of that stretch no gap holds yet (a
    /// device loss held the first 0.1 s); a session whose audio covers its data
    /// gets none.
    @Test func dataPastTheAudioOnDiskIsRecordedAsAGap() throws {
        let directory = try TemporaryDirectory()
        let audio = directory.appending("audio")
        try FileManager.default.createDirectory(atPath: audio, withIntermediateDirectories: true)
        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let format = AudioFormat(sampleRate: 16000, channels: 1)
        let samples = (0..<80000).map { Float(sin(Double($0) * 0.01) * 0.25) }
        var sessions: [Int64] = []
        for (index, onset) in [78992.0, 40000.0].enumerated() {
            let sessionStart = start.addingTimeInterval(Double(index) * 3600)
            let session = try database.createSession(startedAt: sessionStart, device: "test", sampleRate: 16000)
            let path = "\(audio)/\(RollingAudioWriter.fileName(startingAt: sessionStart, sessionId: session.id!, container: .wav))"
            _ = try database.addAudioFile(
                sessionId: session.id!, path: path, startedAt: sessionStart, startFrame: 0, sampleRate: 16000, channels: 1,
                format: .wav)
            let writer = try AudioFileWriter(path: path, format: format, container: .wav)
            try samples.withUnsafeBufferPointer { try writer.write($0) }
            try writer.close()
            _ = try database.appendEvents([
                NewEvent(
                    sessionId: session.id!, frameOffset: Int64(onset), timestamp: sessionStart.addingTimeInterval(onset / 16000),
                    measurements: EventMeasurements(
                        duration: 0.238, kind: .footstep, type: .heelStrike, confidence: 0.9, intensity: .medium, laMax: 60,
                        peakDBFS: -12, sel: 50))
            ])
            sessions.append(session.id!)
        }
        // The first session's microphone was lost at the audio's end, for 0.1 s, and the
        // kill came before the audio after its return reached the disk.
        _ = try database.addGap(
            sessionId: sessions[0], from: start.addingTimeInterval(5.0), to: start.addingTimeInterval(5.1),
            reason: "capture device lost")

        let report = try StartupRecovery(database: database, audioDirectory: audio, logger: DaemonTestSupport.quietLogger)
            .run()
        #expect(report.interruptedSessions.sorted() == sessions)
        // 78,992 / 16,000 + 0.238 = 5.175 s (whole milliseconds, as the store keeps times);
        // the audio ends at 5 s, the device's gap at 5.1 s.
        let lost = try #require(report.lostAudio[sessions[0]])
        #expect(abs(lost - 0.075) < 1e-6)
        #expect(report.lostAudio[sessions[1]] == nil)
        let gaps = try database.gaps(session: sessions[0])
        #expect(gaps.count == 2)
        let gap = try #require(gaps.first { $0.reason == StartupRecovery.lostAudioReason })
        #expect(abs(gap.startedAt.timeIntervalSince(start) - 5.1) < 1e-6)
        #expect(abs(gap.endedAt.timeIntervalSince(start) - 5.175) < 1e-6)
        let session = try #require(try database.session(sessions[0])).session
        #expect(session.endedAt == gap.endedAt)
        #expect(try database.gaps(session: sessions[1]).isEmpty)
    }
}
