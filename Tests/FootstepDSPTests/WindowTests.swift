import Foundation
import Testing

@testable import FootstepDSP

@Suite struct WindowTests {
    @Test func periodicHannShape() {
        let n = 16
        let w = Window.hann(n)
        #expect(w.count == n)
        #expect(w[0] == 0)
        #expect(abs(w[n / 2] - 1) < 1e-7)
        #expect(abs(w[n / 4] - 0.5) < 1e-7)
        for k in 1..<n { #expect(abs(w[k] - w[n - k]) < 1e-7) }  // periodic: symmetric about n/2, w[n-1] ≠ 0
        #expect(w[n - 1] > 0)
        #expect(abs(w.reduce(0, +) - Float(n) / 2) < 1e-5)  // coherent gain 0.5
        for k in 0..<n {
            #expect(abs(Double(w[k]) - (0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(n)))) < 1e-7)
        }
    }

    @Test func degenerateLengths() {
        #expect(Window.hann(0).isEmpty)
        #expect(Window.hann(1) == [1])
    }
}
