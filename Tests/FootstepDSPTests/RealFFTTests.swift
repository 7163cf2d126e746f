import Foundation
import Testing

@testable import FootstepDSP

@Suite struct RealFFTTests {
    @Test(arguments: [(256, 3), (1024, 37), (2048, 1000)])
    func sineInBinKPeaksInBinKWithExpectedPower(size: Int, bin: Int) throws {
        let fft = try RealFFT(size: size)
        let amplitude: Float = 0.25
        for n in 0..<size {
            fft.input[n] = amplitude * Float(sin(2 * Double.pi * Double(bin * n) / Double(size)))
        }
        let before = Array(fft.input)
        fft.forward()
        var power = [Float](repeating: -1, count: fft.binCount)
        power.withUnsafeMutableBufferPointer { fft.powerSpectrum(into: $0) }
        let peak = power.indices.max { power[$0] < power[$1] }
        #expect(peak == bin)
        let expected = pow(amplitude * Float(size) / 2, 2)  // |X[k]| = A·N/2
        #expect(abs(power[bin] / expected - 1) < 1e-4)
        let leakage = power.enumerated().filter { $0.offset != bin }.map(\.element).max() ?? 0
        #expect(leakage < expected * 1e-8)
        #expect(Array(fft.input) == before)  // input preserved
        #expect(abs(fft.output[bin].1 - -amplitude * Float(size) / 2) < 1e-2)  // sine → negative imaginary
    }

    @Test func dcAndNyquistLandInTheEndBins() throws {
        let fft = try RealFFT(size: 64)
        for n in 0..<64 { fft.input[n] = 1 + (n % 2 == 0 ? 0.5 : -0.5) }
        fft.forward()
        #expect(abs(fft.output[0].0 - 64) < 1e-4)
        #expect(abs(fft.output[32].0 - 32) < 1e-4)
    }

    @Test(arguments: [0, 1, 3, 1000, 1 << 21, -8])
    func sizeMustBeAPowerOfTwoInRange(size: Int) {
        #expect(throws: DSPError.invalidFFTSize(size, allowed: RealFFT.sizeRange)) { try RealFFT(size: size) }
    }

    /// Plans are created and destroyed under the process-wide lock: concurrent use is safe.
    @Test func concurrentCreationAndDestructionIsSafe() async {
        await withTaskGroup(of: Bool.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for i in 0..<25 {
                        guard let fft = try? RealFFT(size: 128 << ((t + i) % 4)) else { return false }
                        fft.input[1] = 1
                        fft.forward()
                    }
                    return true
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}
