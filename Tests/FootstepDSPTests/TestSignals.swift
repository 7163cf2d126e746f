import FootstepCore
import Foundation

/// Every test signal is reproducible from its seed.
typealias SeededGenerator = SeededRandom

enum TestSignals {
    /// Peak amplitude of a sine that reads `level` dBFS (full-scale sine = 0 dBFS).
    static func amplitude(dBFS level: Double) -> Double { pow(10, level / 20) }

    /// A sine of `seconds` at `level` dBFS.
    static func sine(frequency: Double, dBFS level: Double, seconds: Double, sampleRate: Double, phase: Double = 0) -> [Float] {
        let n = Int((seconds * sampleRate).rounded())
        let a = amplitude(dBFS: level)
        return (0..<n).map { i in Float(a * sin(2 * Double.pi * frequency * Double(i) / sampleRate + phase)) }
    }

    /// Uniform white noise in ±amplitude from a fixed seed.
    static func noise(amplitude: Double, count: Int, seed: UInt64) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Float(Double.random(in: -amplitude...amplitude, using: &rng)) }
    }

    /// 10·log10(2·mean square) of `x[range]`.
    static func levelDBFS(_ x: [Float], _ range: Range<Int>) -> Double {
        var sum = 0.0
        for i in range { sum += Double(x[i]) * Double(x[i]) }
        return 10 * log10(2 * sum / Double(range.count))
    }
}
