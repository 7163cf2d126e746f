import Foundation
import Testing

@testable import FootstepDSP

/// The detector's fast kernels against the straightforward code they replace.
@Suite struct DetectorKernelTests {
    @Test func fastDecibelsMatchesLog10() {
        var worst = 0.0
        var x = 1e-300
        while x < 1e300 {
            for v in [x, x.nextUp, x * 1.414_213_562_373_09, x * 1.414_213_562_373_1, x * 1.9999] {
                worst = max(worst, abs(Decibels.fastPowerLevel(v) - 10 * log10(v)))
            }
            x *= 1.37
        }
        #expect(worst < 1e-6, "worst error \(worst) dB")
        #expect(Decibels.fastPowerLevel(0) == -.infinity)
        #expect(Decibels.fastPowerLevel(.nan).isNaN)
    }

    /// The vectorised Float logarithm the spectral bands use, over every
    /// binade a band's energy can take and around each one's √2 switch.
    @Test func fastFloatDecibelsMatchLog10() {
        var values: [Float] = []
        var x: Float = 1e-37
        while x < 1e37 {
            values += [x, x.nextUp, x.nextDown, x * 1.414_213_5, x * 1.414_213_6, x * 1.9999]
            x *= 1.37
        }
        var levels = values
        levels.withUnsafeMutableBufferPointer { Decibels.fastPowerLevels($0) }
        let worst = zip(values, levels).map { abs(Double($1) - 10 * log10(Double($0))) }.max() ?? .infinity
        // Float's own rounding of a level near ±370 dB is about 3e-5 dB.
        #expect(worst < 1e-4, "worst error \(worst) dB")
    }

    /// The FIR decimator follows the Butterworth IIR it was cut from, sample for sample.
    @Test(arguments: [(16000.0, 8), (48000.0, 24), (44100.0, 22)])
    func decimatorMatchesTheIIRAtTheKeptSamples(rate: Double, decimation: Int) {
        func butterworth() -> (Biquad, Biquad) {
            func section(q: Double) -> Biquad {
                let w0 = 2 * Double.pi * 450 / rate
                let alpha = sin(w0) / (2 * q)
                let c = cos(w0)
                return Biquad(BiquadCoefficients(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha))
            }
            return (section(q: 0.541_196_1), section(q: 1.306_563))
        }
        let hop = Int((rate * 0.01).rounded())
        var decimator = DecimatingLowPass(butterworth(), decimation: decimation, maximumBlock: hop)
        var (s0, s1) = butterworth()
        var output: [Float] = []
        let kept = UnsafeMutableBufferPointer<Float>.allocate(capacity: hop / decimation + 1)
        defer { kept.deallocate() }
        var rng = SystemRandomNumberGenerator()
        // Noise plus a low tone, in hops (the phase carries across hops when hop % decimation != 0).
        let signal: [Float] = (0..<(hop * 40)).map { i in
            Float.random(in: -0.5...0.5, using: &rng) + 0.4 * Float(sin(2 * Double.pi * 100 * Double(i) / rate))
        }
        var expected: [Float] = []
        var phase = 0
        for x in signal {
            let y = s1.process(s0.process(x))
            phase += 1
            if phase == decimation {
                phase = 0
                expected.append(y)
            }
        }
        signal.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: hop) {
                let count = decimator.process(UnsafeBufferPointer(rebasing: all[start..<(start + hop)]), into: kept)
                output += kept[0..<count]
            }
        }
        #expect(output.count == expected.count)
        var worst: Float = 0
        for (i, e) in expected.enumerated() { worst = max(worst, abs(output[i] - e)) }
        #expect(worst < 2e-4, "worst deviation \(worst)")
    }

    @Test func historyCopiesAcrossTheRingsEnd() {
        var history = SampleHistory(minimumCapacity: 1024)
        let values = (0..<3000).map { Float($0) }
        values.withUnsafeBufferPointer { all in
            history.append(UnsafeBufferPointer(rebasing: all[0..<700]))
            history.append(UnsafeBufferPointer(rebasing: all[700..<1500]))
            history.append(UnsafeBufferPointer(rebasing: all[1500..<3000]))  // longer than the ring
        }
        #expect(history.endFrame == 3000)
        var out = [Float](repeating: -1, count: 1100)
        history.copy(from: 1950, into: &out)  // from before the oldest frame to after the newest
        for (i, v) in out.enumerated() {
            let frame = 1950 + i
            let want: Float = (frame >= 3000 - 1024 && frame < 3000) ? Float(frame) : 0
            #expect(v == want, "frame \(frame)")
            if v != want { break }
        }
    }

    /// The windowed copy an FFT's input takes is the plain copy times the
    /// weights, across the ring's end and where frames are gone or not yet there.
    @Test(arguments: [(2900, 512), (2000, 512), (1950, 1100), (3100, 64), (2600, 1024)])
    func weightedCopyIsTheCopyTimesTheWeights(from: Int, count: Int) {
        var history = SampleHistory(minimumCapacity: 1024)
        let values = (0..<3000).map { Float($0 % 97) - 48 }
        values.withUnsafeBufferPointer { all in
            history.append(UnsafeBufferPointer(rebasing: all[0..<1300]))
            history.append(UnsafeBufferPointer(rebasing: all[1300..<3000]))
        }
        let weights = Window.hann(count)
        var plain = [Float](repeating: -1, count: count)
        history.copy(from: Int64(from), into: &plain)
        var weighted = [Float](repeating: -1, count: count)
        weighted.withUnsafeMutableBufferPointer { out in
            weights.withUnsafeBufferPointer { history.copy(from: Int64(from), into: out, weightedBy: $0) }
        }
        #expect(weighted == zip(plain, weights).map { $0 * $1 })
        #expect(plain.contains { $0 != 0 } || from >= 3000, "the case copies something")
    }
}
