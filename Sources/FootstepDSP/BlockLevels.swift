/// Per-block summary a `LevelMeter.process` call returns (levels include the calibration offset).
public struct BlockLevels: Sendable, Equatable {
    /// Highest Fast A-weighted level during the block, dB.
    public var lafMax: Double
    /// Highest Fast C-weighted level during the block, dB.
    public var lcfMax: Double
    /// Highest Slow A-weighted level during the block, dB.
    public var lasMax: Double
    /// Sum of the squared A-weighted samples (full-scale units, no calibration).
    public var aWeightedEnergy: Double
    /// Largest absolute raw sample value.
    public var peak: Float

    /// Creates a summary; the defaults describe digital silence (levels at `Decibels.floor`).
    public init(
        lafMax: Double = Decibels.floor, lcfMax: Double = Decibels.floor, lasMax: Double = Decibels.floor,
        aWeightedEnergy: Double = 0, peak: Float = 0
    ) {
        self.lafMax = lafMax
        self.lcfMax = lcfMax
        self.lasMax = lasMax
        self.aWeightedEnergy = aWeightedEnergy
        self.peak = peak
    }
}
