/// One band of the parametric EQ prefilter (RBJ "Audio EQ Cookbook" shapes).
public struct EQBand: Sendable, Codable, Equatable {
    /// The band's filter shape.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case peaking
        case lowShelf = "low_shelf"
        case highShelf = "high_shelf"
    }

    /// The band's settings, named as in the configuration file (for error messages).
    public enum Parameter: String, Sendable, Equatable {
        case frequency
        case gainDB = "gain_db"
        case q
    }

    /// Shape of the band.
    public var kind: Kind
    /// Centre (peaking) or corner (shelf) frequency, Hz.
    public var frequency: Double
    /// Gain at the centre / on the shelf, dB.
    public var gainDB: Double
    /// Quality factor (bandwidth of a peak; slope of a shelf, 0.707 = Butterworth).
    public var q: Double

    /// Creates a band.
    public init(kind: Kind, frequency: Double, gainDB: Double, q: Double = 0.707) {
        self.kind = kind
        self.frequency = frequency
        self.gainDB = gainDB
        self.q = q
    }

    /// Allowed gains, dB.
    public static let gainRange: ClosedRange<Double> = -24...24
    /// Allowed quality factors.
    public static let qRange: ClosedRange<Double> = 0.1...20
    /// Lowest allowed frequency, Hz.
    public static let minimumFrequency = 10.0

    /// Allowed frequencies at `sampleRate`: 10 Hz up to 45 % of the sample rate.
    public static func frequencyRange(sampleRate: Double) -> ClosedRange<Double> {
        minimumFrequency...max(minimumFrequency, 0.45 * sampleRate)
    }
}
