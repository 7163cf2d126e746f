import Foundation
import Testing

@testable import FootstepDSP

@Suite struct BiquadTests {
    @Test func bufferAndSampleProcessingAgree() {
        let c = ParametricEQ.coefficients(for: EQBand(kind: .peaking, frequency: 300, gainDB: 8, q: 2), sampleRate: 16000)
        var a = Biquad(c), b = Biquad(c)
        var x = TestSignals.noise(amplitude: 0.5, count: 500, seed: 11)
        let perSample = x.map { a.process($0) }
        x.withUnsafeMutableBufferPointer { b.process($0) }
        #expect(perSample == x)
    }

    @Test func resetReturnsToRest() {
        var f = Biquad(BiquadCoefficients(b0: 0.5, b1: 0.2, b2: 0.1, a1: -0.5, a2: 0.2))
        let first = (0..<10).map { f.process($0 == 0 ? 1 : 0) }
        f.reset()
        let second = (0..<10).map { f.process($0 == 0 ? 1 : 0) }
        #expect(first == second)
    }

    @Test func magnitudeOfKnownSections() {
        #expect(BiquadCoefficients.identity.magnitude(atFrequency: 1234, sampleRate: 8000) == 1)
        // (1 + z⁻¹)/2: 1 at DC, 0 at Nyquist, cos(π/4) at fs/4.
        let avg = BiquadCoefficients(b0: 0.5, b1: 0.5, b2: 0, a1: 0, a2: 0)
        #expect(abs(avg.magnitude(atFrequency: 0, sampleRate: 8000) - 1) < 1e-12)
        #expect(avg.magnitude(atFrequency: 4000, sampleRate: 8000) < 1e-12)
        #expect(abs(avg.magnitude(atFrequency: 2000, sampleRate: 8000) - 0.5.squareRoot()) < 1e-12)
    }

    @Test func a0IsNormalisedAway() {
        let c = BiquadCoefficients(b0: 2, b1: 4, b2: 6, a0: 2, a1: 1, a2: 0.5)
        #expect(c == BiquadCoefficients(b0: 1, b1: 2, b2: 3, a1: 0.5, a2: 0.25))
    }
}
