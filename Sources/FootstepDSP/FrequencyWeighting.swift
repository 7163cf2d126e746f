import Foundation

/// The frequency weightings of IEC 61672-1: A, C and Z (flat).
public enum FrequencyWeighting: String, Sendable, CaseIterable {
    case a = "A"
    case c = "C"
    case z = "Z"

    /// Pole frequencies of the analog weightings, IEC 61672-1:2013 Annex E (E.2, E.3), in Hz.
    static let f1 = 20.598997
    static let f2 = 107.65265
    static let f3 = 737.86223
    static let f4 = 12194.217

    /// The design goal: the analog weighting of IEC 61672-1 Annex E at `f` Hz,
    /// in dB relative to its value at 1 kHz (so exactly 0 at 1 kHz).
    public func designGoalDB(atFrequency f: Double) -> Double {
        switch self {
        case .z: return 0
        case .a, .c:
            return 10 * log10(analogMagnitudeSquared(f) / analogMagnitudeSquared(1000))
        }
    }

    /// |H(j2πf)|² of the unnormalised analog prototype
    /// (A: s⁴/((s+ω1)²(s+ω2)(s+ω3)(s+ω4)²), C: s²/((s+ω1)²(s+ω4)²), both times ω4²).
    func analogMagnitudeSquared(_ f: Double) -> Double {
        let f2sq = f * f
        let hp1 = f2sq / (f2sq + Self.f1 * Self.f1)
        let lp4 = Self.f4 * Self.f4 / (f2sq + Self.f4 * Self.f4)
        switch self {
        case .z: return 1
        case .c: return hp1 * hp1 * lp4 * lp4
        case .a:
            let hp2 = f2sq / (f2sq + Self.f2 * Self.f2)
            let hp3 = f2sq / (f2sq + Self.f3 * Self.f3)
            return hp1 * hp1 * hp2 * hp3 * lp4 * lp4
        }
    }
}
