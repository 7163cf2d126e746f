import FootstepAudio
import FootstepTesting
import Foundation
import Testing

@Suite("ALSA capture through the file plugin")
struct ALSACaptureSourceTests {
    /// A deterministic test signal: a 440 Hz tone with a ramp, so every sample differs.
    static func testSignal(frames: Int, channels: Int) -> [Float] {
        (0..<(frames * channels)).map { i in
            let frame = i / channels
            let channel = i % channels
            return 0.5 * sin(Float(frame) * 2 * .pi * 440 / 16000) * (channel == 0 ? 1 : -0.7) + Float(frame % 97) / 970
        }
    }

    static func capture(_ source: ALSACaptureSource, frames: Int) throws -> [Float] {
        let channels = source.format.channels
        var result: [Float] = []
        var buffer = [Float](repeating: 0, count: 700 * channels)
        while result.count < frames * channels {
            let got = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            #expect(got > 0)
            result.append(contentsOf: buffer[0..<(got * channels)])
        }
        return Array(result.prefix(frames * channels))
    }

    @Test func capturedMonoSamplesEqualTheFile() throws {
        let directory = try TemporaryDirectory()
        let signal = Self.testSignal(frames: 32000, channels: 1)
        let pcm = try ALSAFilePluginPCM(samples: signal, in: directory.path)
        let source = try ALSACaptureSource(
            configuration: .init(device: pcm.name, sampleRate: 16000, channels: 1, periodFrames: 512, ringPeriods: 256),
            alsaConfiguration: pcm.configuration)
        defer { source.close() }
        let captured = try Self.capture(source, frames: pcm.frames)
        #expect(captured == signal.map(ALSAFilePluginPCM.quantized))
        #expect(source.periodFrames == 512)
        #expect(source.statistics.capturedFrames >= pcm.frames)
    }

    @Test func capturedStereoFloatSamplesEqualTheFile() throws {
        let directory = try TemporaryDirectory()
        let signal = Self.testSignal(frames: 12000, channels: 2)
        let pcm = try ALSAFilePluginPCM(samples: signal, channels: 2, format: .floatLE, in: directory.path)
        let source = try ALSACaptureSource(
            configuration: .init(device: pcm.name, sampleRate: 48000, channels: 2, sampleFormat: .floatLE, periodFrames: 480, ringPeriods: 64),
            alsaConfiguration: pcm.configuration)
        defer { source.close() }
        #expect(source.format == AudioFormat(sampleRate: 48000, channels: 2))
        let captured = try Self.capture(source, frames: pcm.frames)
        #expect(captured == signal)
    }

    /// A float device that sends NaN, ±Inf or absurd values (1e38): each becomes
    /// silence and is counted; every other sample arrives unchanged.
    @Test func impossibleFloatSamplesAreSilenceAndCounted() throws {
        let directory = try TemporaryDirectory()
        var signal = Self.testSignal(frames: 12000, channels: 1)
        let bad: [Int: Float] = [100: .nan, 2000: .infinity, 4000: -.infinity, 6000: 1e38, 8000: -3e4]
        for (index, value) in bad { signal[index] = value }
        let pcm = try ALSAFilePluginPCM(samples: signal, channels: 1, format: .floatLE, in: directory.path)
        let source = try ALSACaptureSource(
            configuration: .init(device: pcm.name, sampleRate: 48000, channels: 1, sampleFormat: .floatLE, periodFrames: 480, ringPeriods: 64),
            alsaConfiguration: pcm.configuration)
        defer { source.close() }
        let captured = try Self.capture(source, frames: pcm.frames)
        var expected = signal
        for index in bad.keys { expected[index] = 0 }
        #expect(captured == expected)
        #expect(source.invalidSamples == bad.count)
        #expect(source.statistics.invalidSamples == bad.count)
    }

    @Test func aConsumerThatFallsBehindMakesCountedDropsNotABlockedCapture() throws {
        let directory = try TemporaryDirectory()
        // Long enough to outlast the drops (at its end the plugin repeats its last period).
        let pcm = try ALSAFilePluginPCM(samples: Self.testSignal(frames: 1 << 21, channels: 1), in: directory.path)
        let source = try ALSACaptureSource(
            configuration: .init(device: pcm.name, periodFrames: 256, ringPeriods: 8),
            alsaConfiguration: pcm.configuration)
        defer { source.close() }
        // The unpaced file plugin runs far ahead of a consumer that does not read.
        let deadline = Date().addingTimeInterval(5)
        while source.statistics.droppedPeriods == 0, Date() < deadline { usleep(1000) }
        let statistics = source.statistics
        #expect(statistics.droppedPeriods > 0)
        #expect(statistics.capturedFrames >= 256 * (8 + statistics.droppedPeriods))
        // The first periods were kept intact, and no frame was lost before them.
        let captured = try Self.capture(source, frames: 256 * 8)
        #expect(captured == Array(Self.testSignal(frames: 256 * 8, channels: 1).map(ALSAFilePluginPCM.quantized)))
        #expect(source.framesLostBeforeLastRead == 0)
        // The next read says how much of the stream was dropped before its frames, and
        // they are the stream's frames after that hole.
        var buffer = [Float](repeating: 0, count: 256)
        let got = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
        let lost = source.framesLostBeforeLastRead
        #expect(lost > 0 && lost % 256 == 0, "lost \(lost) frames")
        let signal = Self.testSignal(frames: 1 << 21, channels: 1).map(ALSAFilePluginPCM.quantized)
        #expect(256 * 8 + lost + got <= signal.count, "the drops outran the file: nothing was tested")
        let expected = (0..<got).map { signal[min(256 * 8 + lost + $0, signal.count - 1)] }
        #expect(Array(buffer[0..<got]) == expected)
    }

    @Test func aMissingDeviceGivesATypedErrorNamingIt() throws {
        do {
            _ = try ALSACaptureSource(configuration: .init(device: "nosuchpcm_footstepd"))
            Issue.record("opening a missing device succeeded")
        } catch {
            guard case let .deviceUnavailable(device, code, reason, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(device == "nosuchpcm_footstepd")
            #expect(code == -2)
            #expect(reason == "No such file or directory")
            #expect(error.description.contains("cannot open ALSA capture device 'nosuchpcm_footstepd'"))
        }
    }

    @Test func aMissingInfileGivesATypedError() throws {
        let text = ALSAFilePluginPCM.configurationText(name: "gone", infile: "/nonexistent/footstepd.raw")
        let configuration = try ALSAConfigurationTree(text: text)
        #expect(throws: AudioSourceError.self) {
            _ = try ALSACaptureSource(configuration: .init(device: "gone"), alsaConfiguration: configuration)
        }
    }

    @Test func outOfRangeParametersAreRejectedBeforeOpening() {
        let cases: [(ALSACaptureConfiguration, String)] = [
            (.init(sampleRate: 4000), "sample rate 4000 Hz is out of range"),
            (.init(channels: 3), "channels must be 1 or 2"),
            (.init(periodFrames: 7), "period of 7 frames"),
        ]
        for (configuration, message) in cases {
            do {
                _ = try ALSACaptureSource(configuration: configuration)
                Issue.record("accepted \(configuration)")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
    }

    @Test func malformedALSAConfigurationTextIsAnError() {
        #expect(throws: AudioSourceError.self) { _ = try ALSAConfigurationTree(text: "pcm.x { type ") }
    }
}
