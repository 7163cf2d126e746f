import FootstepAudio
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// footstepd records at the capture's rate and analyses at 16 kHz (issue 69):
/// a 48 kHz source used to be stored at 16 kHz, losing everything above 8 kHz.
@Suite("Daemon: recordings keep the capture's rate", .serialized)
struct DaemonCaptureRateTests {
    struct Run {
        var session: SessionRecord
        var files: [AudioFileRecord]
        var events: [EventRecord]
        var levels: [LevelMinuteRecord]
        var database: FootstepDatabase
    }

    static func run(file path: String, in directory: TemporaryDirectory, name: String) async throws -> Run {
        let state = directory.appending(name)
        var configuration = DaemonConfiguration()
        configuration.recording.audioFormat = .wav
        configuration.recording.rollInterval = 20
        configuration.recording.clipBefore = 0.2
        configuration.recording.clipAfter = 0.2
        configuration.retention.minimumFreeBytes = 0
        var options = DaemonOptions(stateDirectory: state)
        options.sourceStartedAt = Date(timeIntervalSince1970: 1_800_000_000)
        let (group, _) = DaemonApplication.build(
            configuration: configuration, source: .file(path: path), options: options,
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        try await group.run()
        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        return Run(
            session: session, files: try database.audioFiles(session: session.id!),
            events: try DaemonTestSupport.events(database, session: session.id!),
            levels: try database.levels(session: session.id!).items, database: database)
    }

    /// Amplitude of the `frequency` component of `samples` (one channel at `rate`).
    static func amplitude(of frequency: Double, in samples: ArraySlice<Float>, rate: Int) -> Double {
        var (re, im) = (0.0, 0.0)
        for (n, sample) in samples.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(n) / Double(rate)
            re += Double(sample) * cos(phase)
            im += Double(sample) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(samples.count)
    }

    @Test func a48kHzSourceIsStoredAt48kHzAndAnalysedAsAt16kHz() async throws {
        let directory = try TemporaryDirectory()
        // 40 s of walking at 16 kHz, and the same at 48 kHz with a quiet 12 kHz tone that only 48 kHz can hold.
        let scenario = try RenderedScenario("walking:seed=21,duration=40")
        #expect(scenario.sampleRate == 16_000)
        let path16 = directory.appending("walk16.wav")
        _ = try scenario.writeWAV(to: path16)
        let upsampled = try readToEnd(
            try ResamplingSource(try AudioFileSource(path: path16), sampleRate: 48_000))
        let tone = 0.01
        let walk48 = upsampled.enumerated().map { n, sample in
            sample + Float(tone * sin(2 * Double.pi * 12_000 * Double(n) / 48_000))
        }
        let path48 = directory.appending("walk48.wav")
        let writer = try AudioFileWriter(path: path48, format: AudioFormat(sampleRate: 48_000, channels: 1), container: .wav)
        try walk48.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()

        let reference = try await Self.run(file: path16, in: directory, name: "at16")
        let run = try await Self.run(file: path48, in: directory, name: "at48")

        // The session, its files and its clips are at the capture's rate, and hold all of it.
        #expect(reference.session.sampleRate == 16_000)
        #expect(run.session.sampleRate == 48_000)
        #expect(run.files.count >= 2)
        #expect(run.files.allSatisfy { $0.sampleRate == 48_000 })
        #expect(run.files.allSatisfy { DaemonTestSupport.decodedFrames($0.path) == $0.frames })
        #expect(run.files.reduce(0) { $0 + $1.frames } == Int64(walk48.count))
        let stored = try DaemonTestSupport.samples(try #require(run.files.first).path)
        #expect(abs(Self.amplitude(of: 12_000, in: stored[48_000..<96_000], rate: 48_000) - tone) < 0.002)
        // Files follow one another on the session clock (captured frames).
        for (earlier, later) in zip(run.files, run.files.dropFirst()) {
            #expect(later.startFrame == earlier.startFrame + earlier.frames)
        }
        let clip = try #require(run.events.compactMap(\.clipPath).first)
        #expect(try AudioFileSource(path: run.database.resolve(clip)).format.sampleRate == 48_000)

        // The analysis is the 16 kHz one: the same events at the same instants, their frames on the 48 kHz clock.
        #expect(reference.events.count >= 20)
        #expect(abs(run.events.count - reference.events.count) <= 1, "\(run.events.count) against \(reference.events.count)")
        var matched = 0
        var otherKind = 0
        for event in reference.events {
            guard
                let twin = run.events.min(by: {
                    abs($0.timestamp.timeIntervalSince(event.timestamp)) < abs($1.timestamp.timeIntervalSince(event.timestamp))
                }), abs(twin.timestamp.timeIntervalSince(event.timestamp)) < 0.015
            else { continue }
            matched += 1
            #expect(abs(twin.frameOffset - 3 * event.frameOffset) <= 720, "\(twin.frameOffset) against 3 × \(event.frameOffset)")
            if twin.currentKind != event.currentKind { otherKind += 1 }
        }
        // The round trip through 48 kHz changes the audio a little near 8 kHz: one label may tip.
        #expect(matched >= reference.events.count - 1)
        #expect(otherKind <= 1)
        // Level minutes cover the same time with the same levels.
        #expect(run.levels.count == reference.levels.count)
        for (level, twin) in zip(reference.levels, run.levels) {
            #expect(abs(level.startedAt.timeIntervalSince(twin.startedAt)) < 0.01)
            #expect(abs(level.endsAt.timeIntervalSince(twin.endsAt)) < 0.01)
            #expect(abs(level.laeq - twin.laeq) < 0.3)
        }
        #expect(try run.database.verifyEvidence().isIntact)

        // An export across a roll is at 48 kHz, as long as asked, with the tone.
        let formatter = ISO8601DateFormatter()
        let (from, to) = (run.session.startedAt.addingTimeInterval(5), run.session.startedAt.addingTimeInterval(35))
        let output = directory.appending("export.wav")
        let exported = try BuiltProduct.run(
            "footstepctl",
            ["recordings", "export", "--state-dir", directory.appending("at48"), "--from", formatter.string(from: from),
             "--to", formatter.string(from: to), "-o", output])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("from 2 file(s)"), "\(exported.stdout)")
        let export = try AudioFileSource(path: output)
        #expect(export.format.sampleRate == 48_000)
        let samples = try readToEnd(export)
        #expect(samples.count == 30 * 48_000)
        #expect(abs(Self.amplitude(of: 12_000, in: samples[0..<48_000], rate: 48_000) - tone) < 0.002)
    }
}
