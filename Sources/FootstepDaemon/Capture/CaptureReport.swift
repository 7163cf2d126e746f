import FootstepAnalysis
import FootstepAudio
import FootstepDSP
import Foundation

/// What the capture thread reports to the service, in stream order.
enum CaptureReport: Sendable {
    case fileOpened(RollingAudioWriter.OpenedFile)
    case fileClosed(RollingAudioWriter.ClosedFile)
    /// An event with its sample-accurate wall-clock onset; `provisional` when
    /// its label is the classifier's, until a revision settles it.
    case event(AnalyzedEvent, timestamp: Date, provisional: Bool)
    /// An event reported earlier (same onset frame, on the session clock) with
    /// its settled label, or a footstep named again once its whole bout was heard.
    case revision(TypeRevision)
    /// A level interval with the wall-clock time of its first frame.
    case levels(IntervalLevels, startedAt: Date)
    /// A live meter reading (about 8 per second): Fast A level at `time` and the
    /// A-weighted equivalent level since the previous reading, calibrated dB.
    case level(laf: Double, laeq: Double, time: Date)
    /// An event's clip file was written.
    case clip(EventClipRecorder.Clip)
    /// A clip could not be written (the event is kept).
    case clipFailed(reason: String)
    /// The device stopped delivering audio; the thread retries with backoff.
    case deviceLost(reason: String, at: Date)
    /// Capture resumed after `deviceLost` or `outOfTime`: the stretch in between is a
    /// gap. `drift` is how far the wall clock moved past the sample clock (the clock
    /// is re-anchored).
    case deviceRestored(lostAt: Date, at: Date, drift: Double, cause: CaptureOutage.Cause)
    /// The source delivered audio ahead of the wall clock (`CapturePace`): the session
    /// clock had reached `audioEnd` at wall time `from`. From `from` on its audio is
    /// not trusted, and what it sends is discarded until it keeps time again.
    case outOfTime(reason: String, from: Date, audioEnd: Date)
    /// The session stopped while `deviceLost` or `outOfTime` was in progress: the stretch from
    /// `lostAt` to `until` (the stop, on the wall clock) is a gap, and the session ends at `until`.
    case outageOpenAtStop(lostAt: Date, until: Date, cause: CaptureOutage.Cause)
    /// Writing audio failed (disk full, I/O error) with the audio at session
    /// time `at`: events and levels go on.
    case audioWriteFailed(reason: String, at: Date)
    /// Writing audio works again from session time `at`.
    case audioWriteResumed(at: Date)
    /// Audio is not written from `at` on: free space is below the reserve
    /// (the service's storage monitor says why).
    case audioSuspended(at: Date)
    /// Audio is written again from `at`.
    case audioUnsuspended(at: Date)
    /// Paused (`footstepctl pause`): from `at` on, frames are read and dropped, neither analysed nor written.
    case paused(at: Date)
    /// Analysed and written again from `at`.
    case resumed(at: Date)
    /// The device overran or the pipeline fell behind (ALSA counters, cumulative).
    case overrun(droppedPeriods: Int, xruns: Int)
    /// `frames` of the stream were dropped before they reached the pipeline
    /// (it fell behind): the session clock skips them, `[from, to)` has no
    /// audio and no analysis, and the open file ends at `from`.
    case dropped(frames: Int, from: Date, to: Date)
    /// Samples that were not numbers or beyond ±`SampleSanity.limit` were
    /// analysed and recorded as silence (cumulative over the session's devices).
    case invalidSamples(total: Int)
    /// A fatal error: the capture thread stopped.
    case failed(reason: String)
}
