import FootstepAudio
import FootstepTesting
import Foundation
import Testing

@Suite("Rate conversion to the analysis rate (libsoxr)")
struct ResamplingSourceTests {
    /// Left a 440 Hz tone, right 1 kHz, both at amplitude 0.5.
    static func writeTones(_ path: String, rate: Int, frames: Int) throws {
        let samples = (0..<(frames * 2)).map { i in
            let t = Float(i / 2) / Float(rate)
            return 0.5 * sin(2 * .pi * (i % 2 == 0 ? 440 : 1000) * t)
        }
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: rate, channels: 2), container: .wav)
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
    }

    /// Upward zero crossings per second of one channel, away from the ends.
    static func frequency(_ samples: [Float], channel: Int, rate: Int) -> Double {
        let mono = stride(from: channel, to: samples.count, by: 2).map { samples[$0] }
        let middle = mono[(rate / 10)..<(mono.count - rate / 10)]
        let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        return Double(crossings) / (Double(middle.count) / Double(rate))
    }

    static func rms(_ samples: [Float], channel: Int) -> Double {
        let mono = stride(from: channel, to: samples.count, by: 2).map { Double(samples[$0]) }
        return (mono.reduce(0) { $0 + $1 * $1 } / Double(mono.count)).squareRoot()
    }

    @Test(arguments: [44_100, 48_000, 8_000])
    func everyFrameArrivesAtTheNewRateWithItsTonesIntact(rate: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("tones.wav")
        try Self.writeTones(path, rate: rate, frames: rate * 3)
        let source = try AudioFileSource(path: path).atAnalysisRate()
        #expect(source.format == AudioFormat(sampleRate: 16_000, channels: 2))
        #expect(source.frameCount == 48_000)

        let samples = try readToEnd(source)
        #expect(abs(samples.count / 2 - 48_000) <= 2, "\(samples.count / 2) frames for 3 s")
        #expect(abs(Self.frequency(samples, channel: 0, rate: 16_000) - 440) < 1.5)
        #expect(abs(Self.frequency(samples, channel: 1, rate: 16_000) - 1000) < 1.5)
        for channel in 0..<2 {
            let level = 20 * log10(Self.rms(samples, channel: channel) / (0.5 / 2.0.squareRoot()))
            #expect(abs(level) < 0.1, "channel \(channel) changed by \(level) dB")
        }
    }

    @Test func aSourceAlreadyAtTheAnalysisRateIsNotWrapped() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("tones.wav")
        try Self.writeTones(path, rate: 16_000, frames: 1600)
        let file = try AudioFileSource(path: path)
        #expect(try file.atAnalysisRate() === file)
    }

    @Test func aTruncatedFileDeliversItsConvertedFramesThenTheError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("cut.wav")
        try Self.writeTones(path, rate: 48_000, frames: 48_000)
        // Keep the 44-byte header and half the data (48,000 frames × 4 bytes).
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 44 + 96_000)
        try handle.close()

        let source = try AudioFileSource(path: path).atAnalysisRate()
        let (frames, error) = readUntilError(source)
        #expect(error == .truncatedFile(path: path, expectedFrames: 48_000, actualFrames: 24_000))
        // 24,000 frames at 48 kHz are 8,000 at 16 kHz, the converter's delay included.
        #expect(abs(frames - 8000) <= 2, "\(frames) frames before the error")
        #expect(readUntilError(source) == (0, nil))
    }
}
