import FootstepAudio
import Foundation

/// The capture thread's audio output: writes each block to the rolling
/// files, or skips it (the session clock runs on) while audio is suspended
/// below the disk reserve or after a write failed; retries a failed write
/// every `retryInterval` seconds once there is room for ten seconds of audio
/// again (not one new, empty file per retry on a full disk).
///
/// - Note: Capture thread only; nothing is allocated per block.
struct CaptureAudioOutput {
    let writer: RollingAudioWriter
    let directory: String
    let retryInterval: Double
    /// Re-anchor the session clock to the wall clock at each roll (live devices).
    let reanchorAtRoll: Bool
    /// Ten seconds of 16-bit audio.
    let retryFreeBytes: Int64
    /// True while the service has suspended audio (free space below the reserve).
    private(set) var suspended = false
    private var failedAt: ContinuousClock.Instant?

    init(writer: RollingAudioWriter, format: AudioFormat, directory: String, retryInterval: Double, reanchorAtRoll: Bool) {
        self.writer = writer
        self.directory = directory
        self.retryInterval = retryInterval
        self.reanchorAtRoll = reanchorAtRoll
        self.retryFreeBytes = Int64(format.sampleRate * format.channels * 2 * 10)
    }

    /// Writes (or skips) `count` frames; `post` gets the state changes (suspended,
    /// unsuspended, failed, resumed) with the session time they happened at.
    mutating func write(
        _ samples: UnsafeBufferPointer<Float>, frames count: Int, suspend: Bool, post: (CaptureReport) -> Void
    ) {
        if suspend != suspended {
            suspended = suspend
            let at = writer.time(ofFrame: writer.sessionFrame)
            post(suspended ? .audioSuspended(at: at) : .audioUnsuspended(at: at))
        }
        if suspended {
            writer.skip(frames: count)
            return
        }
        if let failedAt {
            guard ContinuousClock.now - failedAt >= .seconds(retryInterval),
                (StorageMonitor.freeBytes(at: directory) ?? .max) >= retryFreeBytes
            else {
                writer.skip(frames: count)
                if ContinuousClock.now - failedAt >= .seconds(retryInterval) { self.failedAt = .now }
                return
            }
            self.failedAt = nil
            try? writer.reanchor(to: writer.time(ofFrame: writer.sessionFrame))
            post(.audioWriteResumed(at: writer.time(ofFrame: writer.sessionFrame)))
        }
        do {
            try writer.write(samples, frames: count, capturedUntil: reanchorAtRoll ? Date() : nil)
        } catch {
            failedAt = .now
            let at = writer.time(ofFrame: writer.sessionFrame)
            try? writer.abandonCurrent()
            post(.audioWriteFailed(reason: "\(error)", at: at))
        }
    }
}
