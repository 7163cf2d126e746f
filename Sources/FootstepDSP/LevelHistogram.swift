/// A fixed-size histogram of levels for percentile statistics (L10, L90, …)
/// without sorting or allocating after `init`.
///
/// Each bin also keeps the sum of the levels that fell into it, so a percentile
/// is reported as the mean of its bin rather than the bin's centre: exact for
/// steady signals, within one bin width otherwise.
public struct LevelHistogram: Sendable {
    /// Lowest level binned; anything below lands in the first bin.
    public let lowerDB: Double
    /// Width of one bin, dB.
    public let binWidthDB: Double
    private var counts: [Int]
    private var sums: [Double]
    /// Number of levels added since the last `reset()`.
    public private(set) var count: Int = 0

    /// Creates an empty histogram covering `lowerDB..<upperDB` in bins of `binWidthDB`.
    public init(lowerDB: Double = -200, upperDB: Double = 40, binWidthDB: Double = 0.1) {
        precondition(upperDB > lowerDB && binWidthDB > 0, "empty histogram range")
        self.lowerDB = lowerDB
        self.binWidthDB = binWidthDB
        let bins = Int(((upperDB - lowerDB) / binWidthDB).rounded(.up))
        counts = Array(repeating: 0, count: bins)
        sums = Array(repeating: 0, count: bins)
    }

    /// Adds one level (values outside the range are clamped to the end bins; NaN to the first).
    public mutating func add(_ level: Double) {
        let position = (level - lowerDB) / binWidthDB
        let bin: Int
        if position >= Double(counts.count - 1) {
            bin = counts.count - 1
        } else if position > 0 {
            bin = Int(position)
        } else {
            bin = 0
        }
        counts[bin] += 1
        sums[bin] += level.isNaN ? lowerDB : level
        count += 1
    }

    /// The level exceeded during `fraction` of the samples (0.1 → L10, 0.9 → L90),
    /// or nil when the histogram is empty.
    public func levelExceeded(fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let target = max(1, Int((fraction * Double(count)).rounded(.up)))
        var cumulative = 0
        for bin in stride(from: counts.count - 1, through: 0, by: -1) where counts[bin] > 0 {
            cumulative += counts[bin]
            if cumulative >= target {
                return sums[bin] / Double(counts[bin])
            }
        }
        return sums[0] / Double(max(counts[0], 1))
    }

    /// Empties the histogram (keeps its storage).
    public mutating func reset() {
        guard count > 0 else { return }
        for i in counts.indices {
            counts[i] = 0
            sums[i] = 0
        }
        count = 0
    }
}
