import Foundation

/// An RBJ ("Audio EQ Cookbook") biquad in transposed direct form II, double
/// precision so that 15 Hz resonances stay stable at 96 kHz. Private to the
/// synthesizer on purpose: it must not change when FootstepDSP's filters do.
struct SynthBiquad {
    var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    var z1 = 0.0, z2 = 0.0

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    private static func omega(_ frequency: Double, _ sampleRate: Double) -> (cos: Double, sin: Double) {
        let f = min(max(frequency, 1), 0.45 * sampleRate)
        let w = 2 * Double.pi * f / sampleRate
        return (cos(w), sin(w))
    }

    static func lowpass(_ frequency: Double, q: Double = 0.7071, sampleRate: Double) -> SynthBiquad {
        let (c, s) = omega(frequency, sampleRate)
        let alpha = s / (2 * q)
        return SynthBiquad(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    static func highpass(_ frequency: Double, q: Double = 0.7071, sampleRate: Double) -> SynthBiquad {
        let (c, s) = omega(frequency, sampleRate)
        let alpha = s / (2 * q)
        return SynthBiquad(b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    /// Band-pass with 0 dB gain at the centre frequency.
    static func bandpass(_ frequency: Double, q: Double, sampleRate: Double) -> SynthBiquad {
        let (c, s) = omega(frequency, sampleRate)
        let alpha = s / (2 * q)
        return SynthBiquad(b0: alpha, b1: 0, b2: -alpha, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }

    /// Filters `count` samples in place.
    mutating func process(_ buffer: UnsafeMutablePointer<Float>, count: Int) {
        var s1 = z1
        var s2 = z2
        let c0 = b0
        let c1 = b1
        let c2 = b2
        let d1 = a1
        let d2 = a2
        for i in 0..<count {
            let x = Double(buffer[i])
            let y = c0 * x + s1
            s1 = c1 * x - d1 * y + s2
            s2 = c2 * x - d2 * y
            buffer[i] = Float(y)
        }
        z1 = s1
        z2 = s2
    }

    /// Filters a whole array in place.
    mutating func process(_ samples: inout [Float]) {
        let n = samples.count
        samples.withUnsafeMutableBufferPointer { process($0.baseAddress!, count: n) }
    }
}

/// A one-pole low-pass smoother: y += a * (x - y).
struct SynthOnePole {
    var a: Double
    var y = 0.0

    init(cutoff: Double, sampleRate: Double) {
        a = 1 - exp(-2 * Double.pi * min(cutoff, 0.45 * sampleRate) / sampleRate)
    }

    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        y += a * (x - y)
        return y
    }
}

/// Sound-level conversions with the convention used throughout the synthesizer:
/// 0 dBFS is the mean power of a full-scale sine (0.5).
enum SynthLevel {
    static func power(dBFS: Double) -> Double { 0.5 * pow(10, dBFS / 10) }
    static func dBFS(power: Double) -> Double { 10 * log10(max(power, 1e-30) / 0.5) }
    static func gain(dB: Double) -> Double { pow(10, dB / 20) }
}
