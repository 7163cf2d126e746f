import CSndfile
import FootstepCore
import FootstepAudio
import FootstepTesting
import Foundation
import Testing

@Suite("Audio files through libsndfile")
struct AudioFileSourceTests {
    static func tone(frames: Int, channels: Int, rate: Int) -> [Float] {
        (0..<(frames * channels)).map { i in 0.25 * sin(Float(i / channels) * 2 * .pi * 300 / Float(rate)) }
    }

    static func readAll(_ source: AudioFileSource) throws -> [Float] {
        var all: [Float] = []
        var buffer = [Float](repeating: 0, count: 1000 * source.format.channels)
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            if frames == 0 { return all }
            all.append(contentsOf: buffer[0..<(frames * source.format.channels)])
        }
    }

    @Test(arguments: [AudioFileContainer.wav, .flac])
    func writtenFilesReadBackWithTheirFormat(container: AudioFileContainer) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("tone.\(container.fileExtension)")
        let signal = Self.tone(frames: 44100, channels: 2, rate: 44100)
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 44100, channels: 2), container: container)
        try signal.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()

        let source = try AudioFileSource(path: path)
        #expect(source.format == AudioFormat(sampleRate: 44100, channels: 2))
        #expect(source.frameCount == 44100)
        let samples = try Self.readAll(source)
        #expect(samples.count == signal.count)
        let maxError = zip(samples, signal).map { abs($0 - $1) }.max() ?? 1
        #expect(maxError < 1.0 / 16384)  // 16-bit quantisation
    }

    @Test func aMissingFileNamesTheFileAndTheReason() {
        #expect {
            _ = try AudioFileSource(path: "/nonexistent/night.flac")
        } throws: { error in
            (error as? AudioSourceError) == .unreadableFile(path: "/nonexistent/night.flac", reason: "No such file or directory")
        }
    }

    @Test func anEmptyFileIsReportedAsEmpty() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("empty.wav")
        FileManager.default.createFile(atPath: path, contents: Data())
        do {
            _ = try AudioFileSource(path: path)
            Issue.record("opened an empty file")
        } catch {
            #expect(error.description == "cannot read audio file '\(path)': the file is empty (0 bytes)")
        }
    }

    @Test func aWavWithNoFramesIsAnEmptyFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("noframes.wav")
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .wav)
        try writer.close()
        #expect(throws: AudioSourceError.emptyFile(path: path)) { _ = try AudioFileSource(path: path) }
    }

    @Test func aTextFileIsNotAudio() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("notes.wav")
        try "this is not audio\n".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try AudioFileSource(path: path)
            Issue.record("opened a text file")
        } catch {
            #expect(error.description.hasPrefix("cannot read audio file '\(path)': not a supported audio file or corrupt"))
        }
    }

    @Test func aDirectoryIsNotAudio() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: AudioSourceError.unreadableFile(path: directory.path, reason: "it is a directory")) {
            _ = try AudioFileSource(path: directory.path)
        }
    }

    /// A FIFO with no writer used to block `analyze` forever; a device never ends.
    @Test func aFIFOOrADeviceIsRefusedAtOnceNamingWhatItIs() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.appending("audio.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, what) in [(fifo, "a FIFO"), ("/dev/zero", "a device")] {
            do {
                _ = try AudioFileSource(path: path)
                Issue.record("opened \(path)")
            } catch {
                guard case let .unreadableFile(failed, reason) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(failed == path)
                #expect(reason.hasPrefix(what), "\(reason)")
            }
        }
    }

    /// A WAV header patched to claim another rate or channel count (the fmt chunk of a 44-byte header).
    static func wavClaiming(rate: UInt32, channels: UInt16, in directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("claims-\(rate)-\(channels).wav")
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .wav)
        try Self.tone(frames: 16000, channels: 1, rate: 16000).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { for (i, byte) in $0.enumerated() { bytes[offset + i] = byte } }
        }
        let blockAlign = UInt16(truncatingIfNeeded: Int(channels) * 2)
        put(channels, at: 22)
        put(rate, at: 24)
        put(UInt32(truncatingIfNeeded: Int(rate) * Int(blockAlign)), at: 28)
        put(blockAlign, at: 32)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [(UInt32(1), UInt16(1)), (2_000_000_000, 1), (16000, 1000)])
    func aHeaderNoRecordingHasIsRefusedNamingWhatItClaims(rate: UInt32, channels: UInt16) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.wavClaiming(rate: rate, channels: channels, in: directory)
        #expect {
            _ = try AudioFileSource(path: path)
        } throws: { error in
            guard case let .unreadableFile(failed, reason) = error as? AudioSourceError else { return false }
            // libsndfile may refuse a header first (then its own reason is given); otherwise ours names the claim.
            return failed == path && (reason.contains("\(rate) Hz, which no recording has") || channels > 64)
        }
    }

    @Test func plausibleRatesAndChannelsStillOpen() throws {
        let directory = try TemporaryDirectory()
        for (rate, channels) in [(UInt32(8000), UInt16(1)), (48000, 2), (192000, 8)] {
            let source = try AudioFileSource(path: try Self.wavClaiming(rate: rate, channels: channels, in: directory))
            #expect(source.format == AudioFormat(sampleRate: Int(rate), channels: Int(channels)))
        }
    }

    @Test func aTruncatedWavDeliversEveryFrameThenReportsTheCut() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("cut.wav")
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .wav)
        try Self.tone(frames: 16000, channels: 1, rate: 16000).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        // Cut the data chunk in half (44-byte header + 16000 × 2 bytes).
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 44 + 16000)
        try handle.close()

        let (frames, error) = readUntilError(try AudioFileSource(path: path))
        #expect(error == .truncatedFile(path: path, expectedFrames: 16000, actualFrames: 8000))
        #expect(frames == 8000)
    }

    @Test func anOggCutShortDeliversWhatIsThereThenReportsTheCut() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("whole.ogg")
        var info = SF_INFO(frames: 0, samplerate: 16000, channels: 1, format: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS), sections: 0, seekable: 0)
        let handle = try #require(sf_open(path, Int32(SFM_WRITE), &info))
        let signal = Self.tone(frames: 160_000, channels: 1, rate: 16000)
        #expect(signal.withUnsafeBufferPointer { sf_writef_float(handle, $0.baseAddress, 160_000) } == 160_000)
        sf_close(handle)
        // The whole file knows its length and reads to the end without an error.
        #expect(try AudioFileSource(path: path).frameCount == 160_000)
        #expect(readUntilError(try AudioFileSource(path: path)) == (160_000, nil))

        // Its first half has lost the last page, which carries the length.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = directory.appending("cut.ogg")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let source = try AudioFileSource(path: cut)
        #expect(source.frameCount == nil)
        let (frames, error) = readUntilError(source)
        #expect(frames > 40_000 && frames < 120_000, "\(frames)")
        #expect(error == .unterminatedStream(path: cut, actualFrames: frames))
        #expect(error?.description.contains("cut short") == true)
        #expect(readUntilError(source) == (0, nil))
    }

    @Test func aFlacWithCorruptFramesFailsWithAClearErrorNotACrash() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("corrupt.flac")
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 16000, channels: 1), container: .flac)
        let noise = (0..<48000).map { Float(($0 * 7919) % 2001 - 1000) / 2000 }
        try noise.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        for i in stride(from: data.count / 3, to: data.count, by: 7) { data[i] ^= 0x5A }
        try data.write(to: URL(fileURLWithPath: path))

        // Either decoding stops with an error naming the file, or what is
        // decoded visibly differs from the original: never silent success.
        do {
            let source = try AudioFileSource(path: path)
            let decoded = try Self.readAll(source)
            let identical = decoded.count == noise.count && zip(decoded, noise).allSatisfy { abs($0 - $1) < 1.0 / 16384 }
            #expect(!identical, "corrupt FLAC decoded as if intact")
        } catch {
            #expect(String(describing: error).contains(path))
        }
    }
}
