import FootstepAudio
import Foundation

/// The capture thread's view of the device's audio flow: when it stops (a
/// stall or a lost device) the outage starts at the last frame received, on
/// the session clock, and the open file and pending clips are closed; at the
/// first frame received again the clock is re-anchored where that block began
/// and the outage ends there. A live device's very first frame anchors the
/// session clock the same way. A simulated source with its own clock (the
/// demo's unplugged microphone) times the outage's end by that clock instead
/// of the wall clock. A source out of time (`CapturePace`) is an outage too:
/// from where the wall clock was when it was found ahead, with its audio
/// read and discarded until it keeps time again.
///
/// - Note: Capture thread only.
struct CaptureOutage {
    /// Why the audio is not recorded.
    enum Cause: Sendable, Equatable {
        /// The device stalled or was lost.
        case deviceLost
        /// The source delivered audio ahead of the wall clock (`CapturePace`).
        case outOfTime
    }

    /// The outage in progress: where the audio stopped on the session clock,
    /// how far the wall clock had run ahead of it by then, and why.
    private(set) var current: (lostAt: Date, drift: Double, cause: Cause)?
    private var lastAudio = ContinuousClock.now
    private var awaitingFirstFrame: Bool

    /// - Parameter anchorAtFirstFrame: True for live devices (the clock starts at their first frame).
    init(anchorAtFirstFrame: Bool) {
        awaitingFirstFrame = anchorAtFirstFrame
    }

    /// The audio stopped: starts an outage unless one is in progress and returns its report.
    ///
    /// - Parameter streamClock: True when the source keeps its own clock (no drift from the wall clock).
    mutating func begin(
        reason: String, writer: RollingAudioWriter, clips: EventClipRecorder, streamClock: Bool = false
    ) -> CaptureReport? {
        guard current == nil else { return nil }
        let lostAt = writer.time(ofFrame: writer.sessionFrame)
        let sinceAudio = ContinuousClock.now - lastAudio
        let lastAudioWallTime = Date().addingTimeInterval(
            -(Double(sinceAudio.components.seconds) + Double(sinceAudio.components.attoseconds) * 1e-18))
        current = (lostAt, streamClock ? 0 : lastAudioWallTime.timeIntervalSince(lostAt), .deviceLost)
        try? writer.close()
        clips.flushPending()
        return .deviceLost(reason: reason, at: lostAt)
    }

    /// The source's audio has run ahead of the wall clock (`now`): the audio
    /// from `now` on the session clock is not to be trusted, and what comes
    /// is discarded until the source keeps time (`read(…)` then ends the outage).
    mutating func beginOutOfTime(reason: String, now: Date, writer: RollingAudioWriter, clips: EventClipRecorder) -> CaptureReport? {
        guard current == nil else { return nil }
        let audioEnd = writer.time(ofFrame: writer.sessionFrame)
        let from = min(now, audioEnd)
        current = (from, now.timeIntervalSince(audioEnd), .outOfTime)
        try? writer.close()
        clips.flushPending()
        return .outOfTime(reason: reason, from: from, audioEnd: audioEnd)
    }

    /// The capture stops: an outage still in progress ends here, at the wall clock (the clock a
    /// recovery re-anchors to). Nil when none is, or on a source with its own clock (the demo's
    /// unplugged microphone, timed by that clock, not by when the session was stopped).
    mutating func endAtStop(streamClock: Bool, now: Date = Date()) -> CaptureReport? {
        guard let (lostAt, _, cause) = current, !streamClock else { return nil }
        current = nil
        return .outageOpenAtStop(lostAt: lostAt, until: max(lostAt, now), cause: cause)
    }

    /// Whether the outage in progress is a source out of time.
    var isOutOfTime: Bool { current?.cause == .outOfTime }

    /// A read returned `count` frames (0 at the end of a file): re-anchors the
    /// clock at a first frame and returns the restored report when an outage ends.
    ///
    /// - Parameter streamEnd: On a source with its own clock, the time just after
    ///   these frames on that clock; nil for the wall clock.
    mutating func read(
        frames count: Int, sampleRate: Int, writer: RollingAudioWriter, sessionStart: Date, streamEnd: Date? = nil
    ) -> CaptureReport? {
        defer { lastAudio = .now }
        guard count > 0, current != nil || awaitingFirstFrame else { return nil }
        awaitingFirstFrame = false
        let firstFrameAt = (streamEnd ?? Date()).addingTimeInterval(-Double(count) / Double(sampleRate))
        guard let (lostAt, drift, cause) = current else {
            try? writer.reanchor(to: max(sessionStart, firstFrameAt))
            return nil
        }
        // Never before audio already recorded: the files of a session do not overlap.
        let back = max(lostAt, firstFrameAt, cause == .outOfTime ? writer.time(ofFrame: writer.sessionFrame) : lostAt)
        try? writer.reanchor(to: back)
        current = nil
        return .deviceRestored(lostAt: lostAt, at: back, drift: drift, cause: cause)
    }
}
