import Foundation

/// Level arithmetic shared by the meters.
public enum Decibels {
    /// The lowest level ever reported (before calibration): digital silence reads this, never −∞ or NaN.
    public static let floor = -200.0

    /// 10·log10(2·meanSquare): a full-scale sine (mean square 0.5) reads 0 dB (AES17 dBFS),
    /// floored at `floor`; NaN reads as `floor` too.
    @inline(__always)
    public static func level(meanSquare: Double) -> Double {
        let x = 2 * meanSquare
        // 1e-20 = -200 dB; the comparison is false for NaN.
        guard x > 1e-20 else { return floor }
        guard x.isFinite else { return 400 }
        return 10 * log10(x)
    }

    /// The mean square that `level(meanSquare:)` maps to `level`.
    public static func meanSquare(level: Double) -> Double {
        pow(10, level / 10) / 2
    }
}
