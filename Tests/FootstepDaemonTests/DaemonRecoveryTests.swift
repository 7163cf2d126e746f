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
}
