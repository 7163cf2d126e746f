import Foundation

/// Checks a live source's audio against the wall clock. A microphone cannot
/// deliver audio before it happens: the session time of the last frame read
/// stays at or behind the wall clock, ahead of it only by what the device's
/// and the hand-off ring's buffers held when the clock was anchored, plus
/// the device clock's drift (well under 1 %). A source that delivers more —
/// a sound server's catch-up burst, a writer replaying its file, a broken
/// driver — puts audio time in the recording that never happened.
///
/// `isAhead` says when the session clock has run ahead of the wall clock by
/// more than `allowance` seconds and 1 % of the session so far: the capture
/// thread then treats the source as out of time (an outage whose audio is
/// read and discarded). `keptTime` says when it may come back: its stream
/// (frames read and frames it dropped) has kept within 1 % of real time
/// for `window` seconds.
///
/// - Note: Capture thread only.
struct CapturePace {
    /// Seconds a source must keep time before its audio counts again.
    static let window = 10.0
    /// How much faster than the wall clock a device's clock may run.
    static let tolerance = 0.01

    /// Seconds ahead of the wall clock the buffers explain.
    let allowance: Double
    let sampleRate: Double
    private var windowStart: ContinuousClock.Instant?
    private var windowFrames: Int64 = 0
    private var discardStart: ContinuousClock.Instant?
    private var discarded: Int64 = 0

    init(allowance: Double, sampleRate: Int) {
        self.allowance = allowance
        self.sampleRate = Double(sampleRate)
    }

    /// Whether the audio read so far, ending at session time `audioEnd`, is
    /// ahead of the wall clock `now` by more than its buffers and a clock's
    /// drift since `sessionStart` explain.
    func isAhead(audioEnd: Date, now: Date, sessionStart: Date) -> Bool {
        audioEnd.timeIntervalSince(now) > allowance + Self.tolerance * max(0, now.timeIntervalSince(sessionStart))
    }

    /// Counts `frames` of the stream (read or dropped) at `now`; true once they
    /// have kept within `tolerance` of real time for a whole `window`.
    mutating func keptTime(frames: Int, now: ContinuousClock.Instant = .now) -> Bool {
        guard let start = windowStart else {
            windowStart = now
            windowFrames = Int64(frames)
            return false
        }
        windowFrames += Int64(frames)
        let elapsed = Self.seconds(now - start)
        // Frames beyond what a device keeping time could have sent since the window began:
        // start again from here.
        if Double(windowFrames) > ((1 + Self.tolerance) * elapsed + 0.5) * sampleRate {
            windowStart = now
            windowFrames = 0
            return false
        }
        if elapsed >= Self.window {
            windowStart = nil
            return true
        }
        return false
    }

    /// Seconds to wait after discarding `frames` more, so that discarded audio
    /// is read at most `discardPace` times as fast as the wall clock: a source
    /// gone wild does not take a core, and what the buffers hold drains (a
    /// source that keeps time blocks the reads by itself and is never waited for).
    mutating func discardWait(frames: Int, now: ContinuousClock.Instant = .now) -> Double {
        let start = discardStart ?? now
        discardStart = start
        discarded += Int64(frames)
        return max(0, Double(discarded) / (Self.discardPace * sampleRate) - Self.seconds(now - start))
    }

    /// How much faster than the wall clock audio to be discarded is read.
    static let discardPace = 4.0

    /// Forgets the window and the discarded audio (the source is in time again, or lost).
    mutating func reset() {
        windowStart = nil
        windowFrames = 0
        discardStart = nil
        discarded = 0
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
