/// Settings of a `LevelMeter`.
public struct LevelMeterConfiguration: Sendable, Equatable {
    /// Sample rate of the mono input, Hz.
    public var sampleRate: Double
    /// Length of one statistics interval (`IntervalLevels`), seconds; at least 1.
    public var intervalSeconds: Double
    /// Added to every reported level (dBFS → dB SPL calibration).
    public var calibrationOffsetDB: Double

    /// Creates a configuration; call `validate()` before handing user input to a meter.
    public init(sampleRate: Double, intervalSeconds: Double = 60, calibrationOffsetDB: Double = 0) {
        self.sampleRate = sampleRate
        self.intervalSeconds = intervalSeconds
        self.calibrationOffsetDB = calibrationOffsetDB
    }

    /// Allowed sample rates, Hz.
    public static let sampleRateRange: ClosedRange<Double> = 8000...384_000
    /// Allowed interval lengths, seconds (1 s to 1 day).
    public static let intervalRange: ClosedRange<Double> = 1...86_400
    /// Allowed calibration offsets, dB.
    public static let calibrationOffsetRange: ClosedRange<Double> = -100...200

    /// Throws `DSPError.invalidLevelMeterConfiguration` naming the first field out of range.
    public func validate() throws(DSPError) {
        if !Self.sampleRateRange.contains(sampleRate) {
            throw .invalidLevelMeterConfiguration(parameter: "sample_rate", value: sampleRate, allowed: Self.sampleRateRange)
        }
        if !Self.intervalRange.contains(intervalSeconds) {
            throw .invalidLevelMeterConfiguration(parameter: "interval_seconds", value: intervalSeconds, allowed: Self.intervalRange)
        }
        if !Self.calibrationOffsetRange.contains(calibrationOffsetDB) {
            throw .invalidLevelMeterConfiguration(
                parameter: "calibration_offset_db", value: calibrationOffsetDB, allowed: Self.calibrationOffsetRange)
        }
    }
}
