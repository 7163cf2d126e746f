import FootstepAudio
import FootstepConfiguration
import FootstepTesting
import Foundation
import Testing

@testable import FootstepDaemon

/// The daemon analyses and records at 16 kHz whatever rate its device or file has.
@Suite("Sources at other rates")
struct SourceChoiceRateTests {
    static func tone(rate: Int, seconds: Double) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { 0.5 * sin(2 * .pi * 440 * Float($0) / Float(rate)) }
    }

    /// Upward zero crossings per second, away from the converter's start.
    static func frequency(_ samples: [Float], rate: Int) -> Double {
        let middle = samples[(rate / 10)...]
        let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        return Double(crossings) / (Double(middle.count) / Double(rate))
    }

    @Test func anALSADeviceOpenedAt48kHzIsAnalysedAt16kHz() throws {
        let directory = try TemporaryDirectory()
        let pcm = try ALSAFilePluginPCM(samples: Self.tone(rate: 48_000, seconds: 2), in: directory.path)
        var configuration = DaemonConfiguration()
        configuration.capture.sampleRate = 48_000
        configuration.capture.periodFrames = 1024
        let source = try SourceChoice.alsa(device: pcm.name, tree: pcm.configuration)
            .open(configuration: configuration, speed: nil, maximumFrames: nil)
        defer { source.close() }
        #expect(source.format == AudioFormat(sampleRate: 16_000, channels: 1))
        #expect((source as? ResamplingSource)?.wrapped.format == AudioFormat(sampleRate: 48_000, channels: 1))

        var captured: [Float] = []
        var buffer = [Float](repeating: 0, count: 1024)
        while captured.count < 16_000 {
            let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            captured += buffer[0..<frames]
        }
        #expect(abs(Self.frequency(captured, rate: 16_000) - 440) < 2)
    }

    @Test func aFileAt44kHzIsReadAt16kHz() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("tone.wav")
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 44_100, channels: 1), container: .wav)
        try Self.tone(rate: 44_100, seconds: 1).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let source = try SourceChoice.file(path: path).open(configuration: DaemonConfiguration(), speed: nil, maximumFrames: nil)
        defer { source.close() }
        #expect(source.format == AudioFormat(sampleRate: 16_000, channels: 1))
        #expect(source.frameCount == 16_000)
        let samples = try readToEnd(source)
        #expect(abs(samples.count - 16_000) <= 2)
        #expect(abs(Self.frequency(samples, rate: 16_000) - 440) < 2)
    }
}
