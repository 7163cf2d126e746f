import Foundation

/// Coefficients of a second-order IIR section, `a0` normalised to 1:
/// `H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)`.
public struct BiquadCoefficients: Sendable, Equatable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double

    /// Creates a section from coefficients whose `a0` is already 1.
    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    /// Creates a section from unnormalised coefficients, dividing through by `a0`.
    public init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.init(b0: b0 / a0, b1: b1 / a0, b2: b2 / a0, a1: a1 / a0, a2: a2 / a0)
    }

    /// The section that passes its input through unchanged.
    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    /// The section with every numerator coefficient multiplied by `gain`.
    public func scaled(by gain: Double) -> BiquadCoefficients {
        BiquadCoefficients(b0: b0 * gain, b1: b1 * gain, b2: b2 * gain, a1: a1, a2: a2)
    }

    /// |H(e^jω)| at frequency `f` (Hz) for the given sample rate.
    public func magnitude(atFrequency f: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * f / sampleRate
        let c1 = cos(w), s1 = sin(w), c2 = cos(2 * w), s2 = sin(2 * w)
        // z⁻¹ = e^{-jω} = cos ω - j sin ω
        let nRe = b0 + b1 * c1 + b2 * c2
        let nIm = -(b1 * s1 + b2 * s2)
        let dRe = 1 + a1 * c1 + a2 * c2
        let dIm = -(a1 * s1 + a2 * s2)
        return ((nRe * nRe + nIm * nIm) / (dRe * dRe + dIm * dIm)).squareRoot()
    }

    /// True when both poles lie strictly inside the unit circle.
    public var isStable: Bool {
        abs(a2) < 1 && abs(a1) < 1 + a2
    }
}
