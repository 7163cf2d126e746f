import Foundation

/// The exponential time weightings of IEC 61672-1: Fast (τ = 0.125 s) and Slow (τ = 1 s).
public enum TimeWeighting: Sendable {
    /// τ = 0.125 s: a level decays at 10·log10(e)/τ ≈ 34.7 dB/s.
    case fast
    /// τ = 1 s: a level decays at ≈ 4.3 dB/s.
    case slow

    /// The exponential time constant τ in seconds.
    public var timeConstant: Double {
        switch self {
        case .fast: 0.125
        case .slow: 1.0
        }
    }

    /// The one-pole smoothing factor α for the squared signal at `sampleRate`:
    /// `y[n] = y[n−1] + α·(x[n]² − y[n−1])`, α = 1 − exp(−1/(τ·fs)).
    public func smoothingFactor(sampleRate: Double) -> Double {
        1 - exp(-1 / (timeConstant * sampleRate))
    }
}
