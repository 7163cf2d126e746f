import FootstepAudio
import FootstepConfiguration
import FootstepTesting
import Foundation
import Testing

@testable import FootstepDaemon

/// The daemon opens its device or file at its own rate: it records at that rate
/// and converts only what it analyses (`DaemonCaptureRateTests`).
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

    @Test func anALSADeviceOpenedAt48kHzDelivers48kHz() throws {
        let directory = try TemporaryDirectory()
        let pcm = try ALSAFilePluginPCM(samples: Self.tone(rate: 48_000, seconds: 2), in: directory.path)
        var configuration = DaemonConfiguration()
        configuration.capture.sampleRate = 48_000
        configuration.capture.periodFrames = 1024
        let source = try SourceChoice.alsa(device: pcm.name, tree: pcm.configuration)
            .open(configuration: configuration, speed: nil, maximumFrames: nil)
        defer { source.close() }
        #expect(source.format == AudioFormat(sampleRate: 48_000, channels: 1))
        #expect(source is ALSACaptureSource)

        var captured: [Float] = []
        var buffer = [Float](repeating: 0, count: 1024)
        while captured.count < 48_000 {
            let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            captured += buffer[0..<frames]
        }
        #expect(abs(Self.frequency(captured, rate: 48_000) - 440) < 2)
    }

    @Test func aFileAt44kHzIsReadAt44kHz() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("tone.wav")
        let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: 44_100, channels: 1), container: .wav)
        try Self.tone(rate: 44_100, seconds: 1).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let source = try SourceChoice.file(path: path).open(configuration: DaemonConfiguration(), speed: nil, maximumFrames: nil)
        defer { source.close() }
        #expect(source.format == AudioFormat(sampleRate: 44_100, channels: 1))
        #expect(source.frameCount == 44_100)
        let samples = try readToEnd(source)
        #expect(samples.count == 44_100)
        #expect(abs(Self.frequency(samples, rate: 44_100) - 440) < 2)
    }

    /// What the capture thread hands the pipeline: the same audio at 16 kHz, every frame of it.
    @Test func theAnalysisFeedConverts48kHzTo16kHz() throws {
        let feed = try AnalysisRateFeed(captureFormat: AudioFormat(sampleRate: 48_000, channels: 1), blockFrames: 2048)
        #expect(feed.analysisFormat == AudioFormat(sampleRate: 16_000, channels: 1))
        let tone = Self.tone(rate: 48_000, seconds: 2)
        var analysed: [Float] = []
        for start in stride(from: 0, to: tone.count, by: 2048) {
            let frames = min(2048, tone.count - start)
            tone[start..<(start + frames)].withUnsafeBufferPointer { block in
                feed.feed(block, frames: frames) { analysed += $0[0..<$1] }
            }
            #expect(feed.nextAnalysisFrame == Int64(((Double(start + frames) / 3).rounded())))
        }
        feed.drain { analysed += $0[0..<$1] }
        #expect(abs(analysed.count - 32_000) <= 1)
        #expect(abs(Self.frequency(analysed, rate: 16_000) - 440) < 2)

        // At 16 kHz the feed hands on the captured samples themselves.
        let same = try AnalysisRateFeed(captureFormat: AudioFormat(sampleRate: 16_000, channels: 1), blockFrames: 2048)
        let block: [Float] = [0.1, 0.2, 0.3]
        var passed: [Float] = []
        block.withUnsafeBufferPointer { same.feed($0, frames: 3) { passed += $0[0..<$1] } }
        #expect(passed == block && same.nextAnalysisFrame == 3)
    }
}
