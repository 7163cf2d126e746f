import FootstepAudio
import Foundation

/// Reports the device's troubles from the capture thread at most every 10 s
/// each: dropped periods and xruns (ALSA), and samples that were not numbers
/// or beyond the sanity limit (counted across reopened devices).
///
/// - Note: Capture thread only.
struct CaptureHealthReporter {
    private var dropped = 0
    private var xruns = 0
    private var lastOverrunReport = ContinuousClock.now - .seconds(10)
    /// Invalid samples of the devices closed before this one, and the total last reported.
    private var invalidBefore = 0
    private var invalidReported = 0
    private var lastInvalidReport = ContinuousClock.now - .seconds(10)

    /// After a read: posts what changed since the last report, if 10 s have passed.
    mutating func check(_ source: any AudioSource, post: (CaptureReport) -> Void) {
        if let alsa = ((source as? ResamplingSource)?.wrapped ?? source) as? ALSACaptureSource {
            let statistics = alsa.statistics
            if statistics.droppedPeriods != dropped || statistics.xruns != xruns,
                ContinuousClock.now - lastOverrunReport >= .seconds(10)
            {
                lastOverrunReport = .now
                dropped = statistics.droppedPeriods
                xruns = statistics.xruns
                post(.overrun(droppedPeriods: dropped, xruns: xruns))
            }
        }
        let invalid = invalidBefore + source.invalidSamples
        if invalid != invalidReported, ContinuousClock.now - lastInvalidReport >= .seconds(10) {
            lastInvalidReport = .now
            invalidReported = invalid
            post(.invalidSamples(total: invalid))
        }
    }

    /// `source` is closed and will be replaced by a reopened device: its counts are kept.
    mutating func replacing(_ source: any AudioSource) {
        invalidBefore += source.invalidSamples
        dropped = 0
        xruns = 0
    }
}
