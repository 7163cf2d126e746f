import FootstepCore
import Foundation

/// One reading of the live level meter (about 8 per second): what
/// `/v1/levels/live` streams (one JSON object per line, see ``APIJSON``) and
/// `footstepctl level` draws.
public struct LiveLevelReading: Sendable, Codable, Equatable {
    /// Wall-clock time of the end of the reading's interval.
    public var time: Date
    /// A-weighted, Fast time-weighted level at `time`, dB (SPL when calibrated, else dBFS-relative).
    public var lafDB: Double
    /// A-weighted equivalent level over the reading's interval (about 125 ms), dB.
    public var laeqDB: Double
    /// The original meter's band for `lafDB`.
    public var band: LevelBand
    /// True when a calibration offset is applied (levels are dB SPL).
    public var calibrated: Bool

    public init(time: Date, lafDB: Double, laeqDB: Double, band: LevelBand, calibrated: Bool) {
        self.time = time
        self.lafDB = lafDB
        self.laeqDB = laeqDB
        self.band = band
        self.calibrated = calibrated
    }

    enum CodingKeys: String, CodingKey {
        case time, band, calibrated
        case lafDB = "laf_db"
        case laeqDB = "laeq_db"
    }
}
