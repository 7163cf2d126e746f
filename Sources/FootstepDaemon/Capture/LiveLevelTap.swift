import FootstepDSP

/// Takes the live meter's readings from the pipeline's level meter every
/// `1 / readingsPerSecond` of stream: the Fast A-weighted level at that
/// instant and the A-weighted equivalent level since the previous reading
/// (from the meter's cumulative energy). Fixed-size state: no allocation.
///
/// - Note: Used by the capture thread only.
struct LiveLevelTap {
    /// Frames between readings (2000 at 16 kHz for 8 per second).
    let intervalFrames: Int64
    private var nextFrame: Int64
    private var lastEnergy = 0.0
    private var lastFrame: Int64 = 0

    init(sampleRate: Int, readingsPerSecond: Int = 8) {
        intervalFrames = Int64(max(1, sampleRate / max(1, readingsPerSecond)))
        nextFrame = intervalFrames
    }

    /// Pipeline frames to process before the next reading is due (at least 1).
    func framesUntilDue(processed: Int64) -> Int { Int(max(1, nextFrame - processed)) }

    /// The reading at `meter`'s current position if one is due, else nil.
    mutating func take(from meter: borrowing LevelMeter, processed: Int64) -> (laf: Double, laeq: Double)? {
        guard processed >= nextFrame else { return nil }
        nextFrame = processed + intervalFrames - (processed - nextFrame) % intervalFrames
        let energy = meter.cumulativeAWeightedEnergy
        let frames = meter.framesProcessed
        let span = frames - lastFrame
        let laeq = span > 0
            ? Decibels.level(meanSquare: max(0, energy - lastEnergy) / Double(span)) + meter.configuration.calibrationOffsetDB
            : meter.currentLAF
        lastEnergy = energy
        lastFrame = frames
        return (meter.currentLAF, laeq)
    }
}
