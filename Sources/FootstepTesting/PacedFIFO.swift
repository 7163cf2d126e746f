import Foundation
import Synchronization

/// A real-time capture device made of ALSA's `file` plugin reading a FIFO that
/// a thread feeds at the wall clock's pace: ALSA blocks in `read()` exactly as
/// on a microphone whose audio stops. `stall(for:)` stops feeding (the FIFO
/// stays open), as a dead USB microphone or a hung driver does; `burst(seconds:)`
/// writes audio ahead of the clock, as a sound server catching up or a writer
/// replaying its buffer does.
///
/// The fed signal is low noise with a short burst every second, 16-bit mono.
public final class PacedFIFO: @unchecked Sendable {
    /// The PCM name to pass as the capture device.
    public let name: String
    /// The FIFO's path.
    public let path: String
    /// The `asoundrc` text defining `name`.
    public let configurationText: String
    public let sampleRate: Int

    private struct State {
        var stalledUntil: ContinuousClock.Instant?
        var stopped = false
        var framesWritten = 0
        var burstFrames = 0
    }
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Makes the FIFO in `directory` and starts the feeding thread (it waits
    /// for ALSA to open the FIFO for reading).
    public init(name: String = "footstepdfifo", sampleRate: Int = 16000, in directory: String) throws {
        self.name = name
        self.sampleRate = sampleRate
        self.path = "\(directory)/\(name).fifo"
        // When ALSA closes the read end, write() fails with EPIPE instead of killing the process.
        signal(SIGPIPE, SIG_IGN)
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.configurationText = ALSAFilePluginPCM.configurationText(name: name, infile: path)
        let thread = Thread { [self] in feed() }
        thread.name = "paced-fifo"
        thread.start()
    }

    /// Frames the feeding thread writes at once: a device's period at 16 kHz (64 ms).
    public static let chunkFrames = 1024

    /// Frames written into the FIFO so far.
    public var framesWritten: Int { state.withLock { $0.framesWritten } }

    /// Stops feeding for `seconds`, keeping the FIFO open; feeding resumes by itself.
    public func stall(for seconds: Double) {
        state.withLock { $0.stalledUntil = .now + .seconds(seconds) }
    }

    /// Writes `seconds` of audio at once, ahead of the wall clock, then goes on at its pace.
    public func burst(seconds: Double) {
        state.withLock { $0.burstFrames += Int(seconds * Double(sampleRate)) }
    }

    /// Stops the feeding thread and closes its end of the FIFO (readers then see end of file).
    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if wasStopped { return }
        // A writer blocked in open() (no reader yet) is released by opening the read end.
        let unblock = open(path, O_RDONLY | O_NONBLOCK)
        _ = finished.wait(timeout: .now() + 5)
        if unblock >= 0 { Foundation.close(unblock) }
        unlink(path)
    }

    deinit { stop() }

    private func feed() {
        defer { finished.signal() }
        let descriptor = open(path, O_WRONLY)
        guard descriptor >= 0 else { return }
        defer { Foundation.close(descriptor) }
        // Whole periods of the default 1,024 frames, each one atomic write: the plugin pads a
        // short read with silence, which would make the device run fast.
        let chunk = Self.chunkFrames
        var samples = [Int16](repeating: 0, count: chunk)
        var random = SystemRandomNumberGenerator()
        var frame = 0
        let clock = ContinuousClock()
        var next = clock.now
        while true {
            let (stopped, stalledUntil, burst) = state.withLock { state in
                defer { state.burstFrames = max(0, state.burstFrames - chunk) }
                return (state.stopped, state.stalledUntil, state.burstFrames > 0)
            }
            if stopped { return }
            if let stalledUntil, clock.now < stalledUntil {
                Thread.sleep(forTimeInterval: 0.02)
                next = clock.now
                continue
            }
            for index in 0..<chunk {
                let position = (frame + index) % sampleRate
                let amplitude: Int16 = position < sampleRate / 50 ? 8000 : 60
                samples[index] = Int16.random(in: -amplitude...amplitude, using: &random)
            }
            let written = samples.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 { return }
            frame += chunk
            state.withLock { $0.framesWritten = frame }
            if burst {
                // The pace goes on from when the burst ends, with no catching up.
                next = clock.now
                continue
            }
            next += .seconds(Double(chunk) / Double(sampleRate))
            let wait = next - clock.now
            if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) / 1e18 + Double(wait.components.seconds)) }
        }
    }
}
