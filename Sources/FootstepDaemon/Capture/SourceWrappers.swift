import FootstepAudio
import Foundation

/// Delivers an inner source at `speed` × real time (sleeps between reads), so
/// that a file or the synthetic scenario behaves like a live device.
final class PacedSource: AudioSource {
    let inner: any AudioSource
    let speed: Double
    private var delivered: Int64 = 0
    private var start: ContinuousClock.Instant?

    init(_ inner: any AudioSource, speed: Double) {
        self.inner = inner
        self.speed = speed
    }

    var format: AudioFormat { inner.format }
    var name: String { inner.name }
    var invalidSamples: Int { inner.invalidSamples }
    var framesLostBeforeLastRead: Int { inner.framesLostBeforeLastRead }
    var frameCount: Int? { inner.frameCount }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        let start = self.start ?? .now
        self.start = start
        // At most ~50 ms of stream time per read, so pacing stays smooth.
        let limit = max(1, Int(Double(format.sampleRate) * 0.05 * speed)) * format.channels
        let slice = UnsafeMutableBufferPointer(rebasing: buffer[0..<min(buffer.count, limit)])
        let frames = try inner.read(into: slice)
        delivered += Int64(frames)
        let due = start + .seconds(Double(delivered) / (Double(format.sampleRate) * speed))
        let now = ContinuousClock.now
        if due > now { Thread.sleep(forTimeInterval: Double((due - now).components.attoseconds) / 1e18 + Double((due - now).components.seconds)) }
        return frames
    }

    func close() { inner.close() }
}

/// Ends an inner source after `frames` frames (the ALSA file plugin never
/// reports the end of its input).
final class LimitedSource: AudioSource {
    let inner: any AudioSource
    let limit: Int
    private var delivered = 0

    init(_ inner: any AudioSource, frames: Int) {
        self.inner = inner
        self.limit = frames
    }

    var format: AudioFormat { inner.format }
    var name: String { inner.name }
    var invalidSamples: Int { inner.invalidSamples }
    var framesLostBeforeLastRead: Int { inner.framesLostBeforeLastRead }
    var frameCount: Int? { min(inner.frameCount ?? limit, limit) }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        let remaining = limit - delivered
        guard remaining > 0 else { return 0 }
        let count = min(buffer.count, remaining * format.channels)
        let frames = try inner.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
        // Frames the device lost are stream time too: the limit is on the stream.
        delivered += frames + inner.framesLostBeforeLastRead
        return frames
    }

    func close() { inner.close() }
}

/// A simulated microphone that is unplugged for a while (the demo's device
/// loss): `outage` frames into the stream a read reports a stall (as a live
/// device does after its 5 s stall timeout), and the next
/// read continues where the outage ends, its audio never delivered (read from
/// the inner source and dropped, so a paced source takes the outage's time).
/// It keeps the stream's own clock, ``streamFrame``, which the capture thread
/// times the outage's end by: a simulated night has no wall clock.
final class SimulatedOutageSource: AudioSource {
    let inner: any AudioSource
    let outage: Range<Int64>
    /// Frames of the stream consumed so far, delivered or lost in the outage.
    private(set) var streamFrame: Int64 = 0
    private var stallReported = false

    init(_ inner: any AudioSource, outage: Range<Int64>) {
        self.inner = inner
        self.outage = outage
    }

    var format: AudioFormat { inner.format }
    var name: String { inner.name }
    var invalidSamples: Int { inner.invalidSamples }
    var framesLostBeforeLastRead: Int { inner.framesLostBeforeLastRead }
    var frameCount: Int? { inner.frameCount.map { $0 - outage.count } }

    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        let channels = format.channels
        if outage.contains(streamFrame) {
            if !stallReported {
                stallReported = true
                throw .stalled(device: name, seconds: ALSACaptureConfiguration().stallTimeout)
            }
            while streamFrame < outage.upperBound {
                let count = min(buffer.count, Int(outage.upperBound - streamFrame) * channels)
                let frames = try inner.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
                guard frames > 0 else { return 0 }
                streamFrame += Int64(frames)
            }
        }
        let limit = streamFrame < outage.lowerBound ? min(buffer.count, Int(outage.lowerBound - streamFrame) * channels) : buffer.count
        let frames = try inner.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<limit]))
        streamFrame += Int64(frames)
        return frames
    }

    func close() { inner.close() }
}
