/// Follows the rhythm of recent onsets so the detector can listen harder
/// where the next step of a walk or run is due.
///
/// A rhythm is established by three evenly spaced onsets (the two intervals
/// within `maximumIntervalMismatch` of each other) at a gait's pace
/// (`intervalRange`). From then on the next step is expected 1, 2 or 3
/// intervals (steps may be missed) after the last onset that kept the rhythm,
/// within `tolerance`; an onset off the rhythm (a knock between steps) does
/// not move it, and the rhythm is dropped when nothing has kept it for more
/// than 3.5 intervals. Stationary noise rarely produces three evenly spaced
/// detections, so the lowered threshold applies almost only inside real gait.
/// Fixed size, no allocation.
struct CadenceTracker {
    /// Interval range of walking and running (1.25–4 steps/s), seconds.
    static let intervalRange = 0.25...0.8
    static let maximumIntervalMismatch = 0.2
    /// How far from the predicted time a step still counts as expected, seconds.
    static let tolerance = 0.08

    private var recent: (Int64, Int64, Int64) = (0, 0, 0)
    private var recentCount = 0
    /// The last onset that kept the rhythm, and the rhythm's interval in frames.
    private var rhythm: (anchor: Int64, interval: Double)?
    private let sampleRate: Double

    init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    /// Records an accepted onset (frames, increasing).
    mutating func record(_ onset: Int64) {
        if let (anchor, interval) = rhythm {
            let since = Double(onset - anchor)
            let steps = (since / interval).rounded()
            if (1...3).contains(steps), abs(since - steps * interval) <= Self.tolerance * sampleRate {
                rhythm = (onset, 0.8 * interval + 0.2 * since / steps)
            } else if since > 3.5 * interval {
                rhythm = nil
            }
        }
        recent = (recent.1, recent.2, onset)
        recentCount = min(recentCount + 1, 3)
        if rhythm == nil, recentCount == 3 {
            let first = Double(recent.1 - recent.0)
            let second = Double(recent.2 - recent.1)
            if Self.intervalRange.contains(second / sampleRate), abs(first - second) <= Self.maximumIntervalMismatch * second {
                rhythm = (onset, 0.5 * (first + second))
            }
        }
    }

    /// Whether a step is due at `frame` by the current rhythm.
    func expectsStep(at frame: Int64) -> Bool {
        guard let (anchor, interval) = rhythm else { return false }
        let since = Double(frame - anchor)
        let steps = (since / interval).rounded()
        return (1...3).contains(steps) && abs(since - steps * interval) <= Self.tolerance * sampleRate
    }
}
