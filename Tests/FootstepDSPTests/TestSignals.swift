import Foundation

/// SplitMix64: a tiny deterministic generator so every test signal is reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

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
