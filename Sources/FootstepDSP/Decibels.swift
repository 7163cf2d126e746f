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

    /// 10·log10(x) for a positive `x`, to about 1e-6 dB without a libm call (for hot
    /// loops that compare levels at ~0.1 dB resolution: spectral bands, per-bin
    /// features). Zero, negative, subnormal and non-finite inputs go to `log10`.
    @inlinable @inline(__always)
    public static func fastPowerLevel(_ x: Double) -> Double {
        guard x.isNormal, x > 0 else { return 10 * log10(x) }
        // x = m · 2^e with m in [√½, √2), ln m = 2·atanh(t), t = (m − 1)/(m + 1), |t| ≤ 0.172.
        // Selects rather than branches: which way it goes is random from call to call.
        let big = x.significand > 1.414_213_562_373_095
        let m = big ? 0.5 * x.significand : x.significand
        let e = Double(x.exponent) + (big ? 1 : 0)
        let t = (m - 1) / (m + 1)
        let t2 = t * t
        let lnM = 2 * t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 * (1.0 / 9)))))
        // 10·log10(x) = 10/ln10 · ln m + 10·log10(2) · e
        return 4.342_944_819_032_518 * lnM + 3.010_299_956_639_812 * e
    }

    /// Replaces every power in `powers` by 10·log10(power), to about 1e-5 dB,
    /// in a loop of plain `Float` arithmetic the compiler vectorises (eight
    /// values an instruction where `fastPowerLevel` does one). Every value must
    /// be a positive normal `Float` (callers add a floor first).
    public static func fastPowerLevels(_ powers: UnsafeMutableBufferPointer<Float>) {
        for i in powers.indices {
            // x = m · 2^e with m in [√½, √2), ln m = 2·atanh(t), t = (m − 1)/(m + 1), |t| ≤ 0.172.
            let bits = powers[i].bitPattern
            let mantissa = Float(bitPattern: (bits & 0x007f_ffff) | 0x3f80_0000)  // [1, 2)
            let big = mantissa > 1.414_213_5
            let m = big ? 0.5 * mantissa : mantissa
            let e = Float(Int32(bitPattern: bits >> 23) - (big ? 126 : 127))
            let t = (m - 1) / (m + 1)
            let t2 = t * t
            let lnM = 2 * t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7))))
            powers[i] = 4.342_944_8 * lnM + 3.010_299_9 * e
        }
    }

    /// The mean square that `level(meanSquare:)` maps to `level`.
    public static func meanSquare(level: Double) -> Double {
        pow(10, level / 10) / 2
    }
}
