import FootstepAudio
import FootstepTesting
import Foundation
import Testing

/// A real-time PCM whose audio stops: ALSA's `file` plugin blocked in `read()`
/// on a FIFO that a paced writer stops feeding.
@Suite("ALSA capture stalls")
struct ALSAStallTests {
    static func read(_ source: ALSACaptureSource, frames: Int) throws(AudioSourceError) -> Int {
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 1024)
        defer { buffer.deallocate() }
        var total = 0
        while total < frames { total += try source.read(into: buffer) }
        return total
    }

    @Test func aStallIsReportedAndTheSameSourceResumesWithTheAudio() throws {
        let directory = try TemporaryDirectory()
        let fifo = try PacedFIFO(in: directory.path)
        defer { fifo.stop() }
        let source = try ALSACaptureSource(
            configuration: ALSACaptureConfiguration(device: fifo.name, sampleRate: 16000, stallTimeout: 1),
            alsaConfiguration: ALSAConfigurationTree(text: fifo.configurationText))
        defer { source.close() }
        #expect(try Self.read(source, frames: 4000) >= 4000)

        fifo.stall(for: 2.5)
        let stalledAt = Date()
        do {
            _ = try Self.read(source, frames: 16000 * 10)
            Issue.record("reading went on through the stall")
        } catch {
            #expect(error == .stalled(device: fifo.name, seconds: 1))
            #expect(error.description.contains("delivered no audio for 1 s; still waiting"))
        }
        #expect(source.isCapturing)
        // The same source delivers again once the audio is back.
        var stalls = 0
        var frames = 0
        while frames < 8000 {
            do { frames += try Self.read(source, frames: 1) } catch { stalls += 1 }
            #expect(stalls < 5)
            if stalls >= 5 { break }
        }
        #expect(Date().timeIntervalSince(stalledAt) > 2.4)
    }

    @Test func closingDuringAStallReturnsAndTheThreadClosesThePCMWhenItsReadReturns() throws {
        let directory = try TemporaryDirectory()
        let fifo = try PacedFIFO(in: directory.path)
        defer { fifo.stop() }
        let source = try ALSACaptureSource(
            configuration: ALSACaptureConfiguration(device: fifo.name, sampleRate: 16000, stallTimeout: 1),
            alsaConfiguration: ALSAConfigurationTree(text: fifo.configurationText))
        #expect(try Self.read(source, frames: 4000) >= 4000)
        fifo.stall(for: 3)
        Thread.sleep(forTimeInterval: 0.5)
        // The capture thread is blocked in read() inside ALSA: close() must not
        // close the PCM under it (that crashed in snd_pcm_area_copy).
        let start = Date()
        source.close()
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(source.isCapturing)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        #expect(try source.read(into: buffer) == 0)
        // When the audio comes back, the thread's read returns and it closes the PCM.
        let deadline = Date().addingTimeInterval(6)
        while source.isCapturing, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!source.isCapturing)
    }
}

@Suite("ALSA device list")
struct ALSADeviceListTests {
    @Test func listsCardsByStableNameAndSoundServersButNoConverterPlugins() {
        // On this kind of machine ALSA's configuration defines lavrate, samplerate,
        // speexrate, jack, oss, upmix, vdownmix…: none of them is a microphone.
        let devices = ALSADeviceList.devices()
        for device in devices {
            #expect(
                device.name.hasPrefix("plughw:CARD=") || ["default", "pulse", "pipewire"].contains(device.name),
                "\(device.name)")
            #expect(!device.description.isEmpty)
        }
        #expect(Set(devices.map(\.name)).isDisjoint(with: ["lavrate", "samplerate", "speexrate", "jack", "oss", "upmix", "vdownmix", "null"]))
        #expect(ALSADeviceList.captureDevices() == devices.map(\.name))
    }
}
