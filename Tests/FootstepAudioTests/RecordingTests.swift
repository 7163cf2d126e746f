import CSndfile
import FootstepAudio
import FootstepCore
import FootstepTesting
import Foundation
import Testing

@Suite("Rolling audio files and start-up repair")
struct RecordingTests {
    /// A deterministic test signal: a slow chirp plus a counter-like ramp, within ±0.5.
    static func signal(frames: Int, rate: Int = 16000) -> [Float] {
        (0..<frames).map { i in
            let t = Double(i) / Double(rate)
            return Float(0.4 * sin(2 * .pi * (200 + 50 * t) * t) + 0.05 * Double(i % 97) / 97)
        }
    }

    static func decode(_ path: String) throws -> [Float] {
        let source = try AudioFileSource(path: path)
        defer { source.close() }
        return try readToEnd(source)
    }

    static func sndfileFrames(_ path: String) -> Int64 {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else { return -1 }
        sf_close(handle)
        return Int64(info.frames)
    }

    @Test func fileNamesAreTheUTCStartAndTheSession() {
        let date = Date(timeIntervalSince1970: 1_763_769_600 + 3 * 3600 + 4 * 60 + 5.75)  // 2025-11-22 03:04:05.75 UTC
        #expect(RollingAudioWriter.fileName(startingAt: date, sessionId: 42, container: .flac) == "20251122T030405Z-s42.flac")
        #expect(RollingAudioWriter.fileName(startingAt: date, sessionId: 7, container: .wav) == "20251122T030405Z-s7.wav")
    }

    @Test(arguments: [AudioFileContainer.flac, .wav])
    func rollsAtWallClockBoundariesIntoContiguousFiles(container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let rate = 16000
        let anchor = Date(timeIntervalSince1970: 1_763_769_600.5)  // half a second past a boundary
        let writer = try RollingAudioWriter(
            directory: directory.appending("audio"), container: container, format: AudioFormat(sampleRate: rate, channels: 1),
            sessionId: 3, anchor: anchor, rollInterval: 1, syncInterval: 0.1)
        var opened: [RollingAudioWriter.OpenedFile] = []
        var closed: [RollingAudioWriter.ClosedFile] = []
        writer.onOpen = { opened.append($0) }
        writer.onClose = { closed.append($0) }
        let samples = Self.signal(frames: 3 * rate + 3210)
        var offset = 0
        let blocks = [1000, 333, 4096, 17, 2048]
        var index = 0
        while offset < samples.count {
            let count = min(blocks[index % blocks.count], samples.count - offset)
            try samples.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[offset..<(offset + count)]), frames: count) }
            offset += count
            index += 1
        }
        try writer.close()

        #expect(opened.count == 4)
        #expect(closed.map(\.frames) == [8000, 16000, 16000, 11210])
        #expect(closed.map(\.frames).reduce(0, +) == Int64(samples.count))
        for (previous, next) in zip(closed, closed.dropFirst()) {
            #expect(next.startFrame == previous.startFrame + previous.frames)
        }
        #expect(closed.dropFirst().allSatisfy { $0.startedAt.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) == 0 })
        #expect(closed.map { ($0.path as NSString).lastPathComponent }.first == "20251122T000000Z-s3.\(container.fileExtension)")
        // The files decode back to the input, frame for frame (16-bit quantisation).
        var decoded: [Float] = []
        for file in closed {
            #expect(Self.sndfileFrames(file.path) == file.frames)
            decoded += try Self.decode(file.path)
        }
        #expect(decoded.count == samples.count)
        let worst = zip(decoded, samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1.0 / 16000)
    }

    /// A device that delivers a burst faster than real time (a buffer catching up)
    /// must not re-anchor a roll to before the previous file's start.
    @Test func reanchoredStartsNeverGoBackInTime() throws {
        let directory = try TemporaryDirectory()
        let rate = 16000
        let anchor = Date(timeIntervalSince1970: 1_763_769_600.99)  // 10 ms before a boundary
        let writer = try RollingAudioWriter(
            directory: directory.appending("audio"), container: .wav, format: AudioFormat(sampleRate: rate, channels: 1),
            sessionId: 4, anchor: anchor, rollInterval: 1, syncInterval: 1)
        var opened: [RollingAudioWriter.OpenedFile] = []
        writer.onOpen = { opened.append($0) }
        let samples = Self.signal(frames: 2048)
        // 128 ms of audio captured 20 ms after the anchor: taken at face value, the
        // roll at frame 160 would have been captured 98 ms before the session began.
        try samples.withUnsafeBufferPointer { try writer.write($0, frames: 2048, capturedUntil: anchor.addingTimeInterval(0.02)) }
        try writer.close()
        #expect(opened.count == 2)
        #expect(opened.map(\.startFrame) == [0, 160])
        #expect(opened[1].startedAt > opened[0].startedAt, "\(opened.map(\.startedAt))")
    }

    @Test(arguments: [
        (AudioFileContainer.flac, AudioSampleEncoding.pcm16), (.flac, .pcm24), (.wav, .pcm16), (.wav, .pcm24), (.wav, .float),
    ])
    func eachBitDepthKeepsWhatItCanHold(container: AudioFileContainer, encoding: AudioSampleEncoding) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("depth.\(container.fileExtension)")
        // A quiet night: a 200 Hz tone at 1e-5 of full scale, a third of a 16-bit step.
        let quiet = (0..<16000).map { Float(1e-5 * sin(2 * Double.pi * 200 * Double($0) / 16000)) }
        let writer = try AudioFileWriter(
            path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: container, encoding: encoding)
        try quiet.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        #expect(AudioSampleEncoding(ofFileAt: path) == encoding)
        let decoded = try Self.decode(path)
        #expect(decoded.count == quiet.count)
        let error = zip(decoded, quiet).map { abs($0 - $1) }.max()!
        switch encoding {
        case .pcm16: #expect(error > 0.5e-5, "16 bits lose the tone: the error is as large as the tone (\(error))")
        case .pcm24: #expect(error < 1.2e-7, "24 bits keep it within a step (\(error))")
        case .float: #expect(error == 0)
        }
    }

    @Test func flacRefusesFloatSamples() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: AudioFileWriterError.self) {
            try AudioFileWriter(
                path: directory.appending("x.flac"), format: AudioFormat(sampleRate: 16000, channels: 1), container: .flac,
                encoding: .float)
        }
    }

    @Test func wavLeftWithZeroLengthsIsRepairedFromItsSize() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("killed.wav")
        let samples = Self.signal(frames: 80000)
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .wav)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        // What a SIGKILLed plain libsndfile writer leaves: RIFF length 8, data length 0,
        // plus half a frame that never completed.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 4)
        handle.write(Data([8, 0, 0, 0]))
        try handle.seek(toOffset: 40)
        handle.write(Data([0, 0, 0, 0]))
        try handle.seekToEnd()
        handle.write(Data([0x7f]))
        try handle.close()

        let result = try AudioFileRepair.repair(path: path, fallbackFormat: AudioFormat(sampleRate: 16000, channels: 1))
        #expect(result.action == .wavHeaderRewritten)
        #expect(result.frames == 80000)
        #expect(result.bytes == 44 + 160_000)
        #expect(Self.sndfileFrames(path) == 80000)
        #expect(try Self.decode(path).count == 80000)
        // A second pass finds nothing to do.
        #expect(try AudioFileRepair.repair(path: path, fallbackFormat: AudioFormat(sampleRate: 16000, channels: 1)).action == .none)
    }

    @Test func flacWithUnknownLengthIsReencodedAndFinalised() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("killed.flac")
        let samples = Self.signal(frames: 80000)
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .flac)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        // What a killed FLAC writer leaves: STREAMINFO total_samples 0 and no MD5.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: 21)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: 21)
        handle.write(Data([byte & 0xF0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)))
        try handle.close()
        #expect(Self.sndfileFrames(path) == Int64.max)

        let result = try AudioFileRepair.repair(path: path, fallbackFormat: AudioFormat(sampleRate: 16000, channels: 1))
        #expect(result.action == .flacReencoded)
        #expect(result.frames == 80000)
        #expect(Self.sndfileFrames(path) == 80000)
        let decoded = try Self.decode(path)
        #expect(decoded.count == 80000)
        #expect(zip(decoded, samples).allSatisfy { abs($0 - $1) < 1.0 / 16000 })
        #expect(!FileManager.default.fileExists(atPath: path + ".repair"))
        #expect(try AudioFileRepair.repair(path: path, fallbackFormat: AudioFormat(sampleRate: 16000, channels: 1)).action == .none)
    }

    @Test func aFileWithoutAHeaderBecomesAnEmptyValidFile() throws {
        let directory = try TemporaryDirectory()
        for name in ["empty.flac", "empty.wav"] {
            let path = directory.appending(name)
            FileManager.default.createFile(atPath: path, contents: Data([0x66, 0x4c]))
            let result = try AudioFileRepair.repair(path: path, fallbackFormat: AudioFormat(sampleRate: 16000, channels: 1))
            #expect(result.action == .recreatedEmpty)
            #expect(result.frames == 0)
            if name.hasSuffix(".wav") {
                #expect(Self.sndfileFrames(path) == 0)
            } else {
                // libsndfile writes no FLAC stream at all for zero frames: an empty file.
                #expect(FileManager.default.contents(atPath: path)?.isEmpty == true)
            }
        }
    }
}
