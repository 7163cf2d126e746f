import Foundation

/// A small, fast, seedable generator (xoshiro256**, seeded through SplitMix64)
/// used for every random choice the synthesizer makes.
///
/// The standard library's `random(in:using:)` algorithms are not promised to
/// stay the same across Swift releases, so all helpers here are written out:
/// the same seed gives the same sound on every toolchain and platform.
struct SynthRandom {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    init(seed: UInt64) {
        var sm = seed
        s0 = SynthRandom.splitMix(&sm)
        s1 = SynthRandom.splitMix(&sm)
        s2 = SynthRandom.splitMix(&sm)
        s3 = SynthRandom.splitMix(&sm)
    }

    /// Derives an independent seed for a sub-stream (`stream` numbers an event, a layer, a voice).
    static func derive(_ seed: UInt64, _ stream: UInt64) -> UInt64 {
        var sm = seed ^ (stream &* 0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03
        _ = splitMix(&sm)
        return splitMix(&sm)
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    mutating func next() -> UInt64 {
        let result = ((s1 &* 5) << 7 | (s1 &* 5) >> 57) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45) | (s3 >> 19)
        return result
    }

    /// Uniform in [0, 1).
    @inline(__always)
    mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [a, b).
    mutating func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * uniform()
    }

    /// Log-uniform in [a, b) (for frequencies and time constants).
    mutating func logUniform(_ a: Double, _ b: Double) -> Double {
        a * pow(b / a, uniform())
    }

    /// Uniform integer in the closed range.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        return range.lowerBound + Int(next() % span)
    }

    mutating func chance(_ probability: Double) -> Bool {
        uniform() < probability
    }

    /// White noise sample, uniform in [-1, 1).
    @inline(__always)
    mutating func noise() -> Float {
        Float(Int32(truncatingIfNeeded: next() >> 32)) * 0x1.0p-31
    }

    /// Standard normal (Box-Muller).
    mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * uniform())
    }

    mutating func pick<T>(_ items: [T]) -> T {
        items[int(0...(items.count - 1))]
    }

    /// Index chosen with the given relative weights.
    mutating func weighted(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        var r = uniform() * total
        for (i, w) in weights.enumerated() {
            r -= w
            if r < 0 { return i }
        }
        return weights.count - 1
    }

    /// Fisher-Yates, written out so the order never depends on the stdlib version.
    mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(i, int(0...i))
        }
    }
}
