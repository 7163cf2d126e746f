import Foundation
/// The recent onset history of a stream, as classifier context: how long
/// since the previous impact, how many impacts in the last 3 s, their local
/// cadence and how regular it is. Fixed capacity, no allocation.
struct OnsetContext {
    static let featureNames = [
        "ioi_previous_log_s", "onsets_last_3s", "local_cadence_hz", "ioi_irregularity", "bout_cadence_hz",
        "bout_steps_log",
    ]
    static let capacity = 8

    private var onsets: (Double, Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var count = 0
    private var next = 0
    /// The current run of onsets less than `GaitBoutTracker.maximumInterval` apart
    /// (the bout the event would join): its first onset and its length.
    private var runStart = 0.0
    private var runSteps = 0

    mutating func record(_ onset: Double) {
        withUnsafeMutableBytes(of: &onsets) { raw in
            raw.baseAddress!.assumingMemoryBound(to: Double.self)[next] = onset
        }
        if runSteps > 0, count > 0, onset - self.onset(0) < GaitBoutTracker.maximumInterval {
            runSteps += 1
        } else {
            runStart = onset
            runSteps = 1
        }
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }

    /// The `i`-th most recent onset (0 = latest).
    private func onset(_ i: Int) -> Double {
        withUnsafeBytes(of: onsets) { raw in
            raw.baseAddress!.assumingMemoryBound(to: Double.self)[(next - 1 - i + 2 * Self.capacity) % Self.capacity]
        }
    }

    func features(at time: Double, into out: UnsafeMutableBufferPointer<Double>, from start: Int) {
        var i = start
        let previous = count > 0 ? time - onset(0) : 5
        out[i] = log10(clamp(previous, 0.1, 5)); i += 1
        var recent = 0
        var intervals: (Double, Double, Double, Double) = (0, 0, 0, 0)
        var intervalCount = 0
        var later = time
        for j in 0..<count {
            let t = onset(j)
            guard time - t <= 3 else { break }
            recent += 1
            if intervalCount < 4, later - t < 2 {
                let interval = later - t
                switch intervalCount {
                case 0: intervals.0 = interval
                case 1: intervals.1 = interval
                case 2: intervals.2 = interval
                default: intervals.3 = interval
                }
                intervalCount += 1
            }
            later = t
        }
        out[i] = Double(recent); i += 1
        // Median of up to 4 intervals (a sorting network on locals: no allocation).
        var (a, b, c, d) = intervals
        if intervalCount < 4 { d = .infinity }
        if intervalCount < 3 { c = .infinity }
        if intervalCount < 2 { b = .infinity }
        if a > b { swap(&a, &b) }
        if c > d { swap(&c, &d) }
        if a > c { swap(&a, &c) }
        if b > d { swap(&b, &d) }
        if b > c { swap(&b, &c) }
        let median: Double
        switch intervalCount {
        case 0: median = 0
        case 1: median = a
        case 2: median = 0.5 * (a + b)
        case 3: median = b
        default: median = 0.5 * (b + c)
        }
        out[i] = median > 0 ? 1 / median : 0; i += 1
        out[i] = median > 0 && count > 0 ? clamp(abs(previous - median) / median, 0, 2) : 2; i += 1
        // The bout this event would extend: its cadence so far and its length.
        let inBout = runSteps > 0 && count > 0 && time - onset(0) < GaitBoutTracker.maximumInterval
        let steps = inBout ? runSteps : 0
        out[i] = steps >= 2 && onset(0) > runStart ? Double(steps - 1) / (onset(0) - runStart) : 0; i += 1
        out[i] = log10(Double(1 + steps))
    }
}
