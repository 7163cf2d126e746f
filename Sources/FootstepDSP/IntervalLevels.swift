/// Statistics of one completed interval (levels in dB, calibration offset included).
public struct IntervalLevels: Sendable, Equatable, Codable {
    /// Frame index (since the meter started) of the interval's first sample.
    public var startFrame: Int64
    /// Number of frames in the interval.
    public var frames: Int
    /// A-weighted equivalent continuous level.
    public var laeq: Double
    /// C-weighted equivalent continuous level.
    public var lceq: Double
    /// Unweighted (Z) equivalent continuous level.
    public var lzeq: Double
    /// Highest Fast A-weighted level.
    public var lafMax: Double
    /// Lowest Fast A-weighted level (after the meter's first 0.5 s of settling).
    public var lafMin: Double
    /// Fast A-weighted level exceeded 10 % of the time.
    public var la10: Double
    /// Fast A-weighted level exceeded 90 % of the time (background level).
    public var la90: Double

    /// Creates interval statistics.
    public init(
        startFrame: Int64, frames: Int, laeq: Double, lceq: Double, lzeq: Double,
        lafMax: Double, lafMin: Double, la10: Double, la90: Double
    ) {
        self.startFrame = startFrame
        self.frames = frames
        self.laeq = laeq
        self.lceq = lceq
        self.lzeq = lzeq
        self.lafMax = lafMax
        self.lafMin = lafMin
        self.la10 = la10
        self.la90 = la90
    }
}
