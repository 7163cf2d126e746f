import FootstepAudio
import FootstepTesting
import Foundation
import Testing

/// A real-time device that disappears and comes back: a PulseAudio null sink
/// behind ALSA's pulse plugin (needs the pulseaudio and libasound2-plugins packages).
@Suite("ALSA device loss and return", .enabled(if: PulseNullSink.isAvailable))
struct ALSADeviceLossTests {
    static func readFrames(_ source: ALSACaptureSource, count: Int) throws(AudioSourceError) -> Int {
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        var total = 0
        while total < count {
            total += try source.read(into: buffer)
        }
        return total
    }

    @Test func aVanishingDeviceIsReportedAsLostAndCanBeReopenedWhenItReturns() throws {
        let pulse = try PulseNullSink()
        try pulse.start()
        let alsa = try ALSAConfigurationTree(text: pulse.configurationText)
        let configuration = ALSACaptureConfiguration(device: pulse.pcmName, sampleRate: 16000, stallTimeout: 2)

        let source = try ALSACaptureSource(configuration: configuration, alsaConfiguration: alsa)
        let start = Date()
        #expect(try Self.readFrames(source, count: 8000) >= 8000)
        // Paced in real time: half a second of audio takes about half a second.
        #expect(Date().timeIntervalSince(start) > 0.3)

        pulse.stop()
        do {
            _ = try Self.readFrames(source, count: 16000 * 10)
            Issue.record("reading went on after the device vanished")
        } catch {
            guard case let .deviceLost(device, code, reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(device == pulse.pcmName)
            #expect(code < 0)
            #expect(error.description.contains("ALSA capture device '\(pulse.pcmName)' stopped delivering audio"), "\(reason)")
        }
        source.close()

        try pulse.start()
        let reopened = try ALSACaptureSource(configuration: configuration, alsaConfiguration: alsa)
        defer { reopened.close() }
        #expect(try Self.readFrames(reopened, count: 1600) >= 1600)
    }
}
