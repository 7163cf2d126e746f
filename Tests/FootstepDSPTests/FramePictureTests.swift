import FootstepDSP
import Foundation
import Testing

/// The frame step network's picture of the stream: each band over its own
/// floor, whatever the microphone's gain, the floor following the last 30 s.
@Suite struct FramePictureTests {
    static let rate = 16_000.0

    /// Deterministic white noise of RMS `amplitude`, `seconds` long.
    static func noise(seconds: Double, amplitude: Float, seed: UInt64 = 7) -> [Float] {
        var state = seed
        return (0..<Int(seconds * rate)).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return amplitude * 1.732 * (Float(state >> 40) / Float(1 << 24) * 2 - 1)
        }
    }

    /// Adds a 1 kHz burst of `amplitude`, 100 ms from `start` seconds.
    static func burst(_ signal: inout [Float], at start: Double, amplitude: Float) {
        let first = Int(start * rate)
        for i in first..<(first + Int(0.1 * rate)) {
            signal[i] += amplitude * Float(sin(2 * Double.pi * 1000 * Double(i) / rate))
        }
    }

    /// The picture's columns, one per hop.
    static func columns(of signal: [Float]) throws -> [[Float]] {
        var picture = try StreamFramePicture(sampleRate: rate)
        let hop = picture.hopFrames
        return stride(from: 0, to: signal.count - hop + 1, by: hop).map { start in
            signal[start..<(start + hop)].withUnsafeBufferPointer { Array(picture.process($0)) }
        }
    }

    /// The high band holding 1 kHz (bands equally spaced in log frequency over 400–7600 Hz).
    static let kilohertzBand = FramePicture.lowBandCount
        + Int(Double(FramePicture.highBandCount) * log(1000 / 400) / log(7600 / 400))

    @Test func aSteadySoundSitsOnItsFloorAndABurstStandsOverIt() throws {
        var signal = Self.noise(seconds: 6, amplitude: 0.01)
        Self.burst(&signal, at: 4, amplitude: 0.3)
        let columns = try Self.columns(of: signal)
        #expect(columns.count == 600)
        #expect(columns.allSatisfy { $0.count == FramePicture.bandCount })
        // Noise alone, seconds 2-4: each band's median is a little over its 20th percentile.
        let quiet = columns[200..<390].flatMap { $0 }.sorted()
        let median = quiet[quiet.count / 2]
        #expect(median > 0 && median < 4, "noise stands \(median) dB over its floor")
        // The burst (hops 400-409; the 32 ms frames lie inside it from hop 403): its band stands far over the
        // floor, far over the bands under 100 Hz (which hear only the gated tone's edges).
        let loud = columns[403..<410]
        let band = Self.kilohertzBand
        let burstBand = loud.map { $0[band] }.min()!
        #expect(burstBand > 25, "the 1 kHz band: \(burstBand) dB")
        #expect(loud.flatMap { $0[0..<8] }.max()! < burstBand - 15, "bands under 100 Hz stay far under it")
        #expect(columns.flatMap { $0 }.allSatisfy { FramePicture.clipRange.contains($0) })
    }

    @Test func theMicrophonesGainIsTakenOut() throws {
        var signal = Self.noise(seconds: 5, amplitude: 0.02)
        Self.burst(&signal, at: 3, amplitude: 0.2)
        let loud = try Self.columns(of: signal)
        let quiet = try Self.columns(of: signal.map { $0 * 0.1 })
        // After the first second (whose floor is re-estimated every 0.1 s), 20 dB less gain changes nothing
        // but the histogram's 0.25 dB steps.
        var largest: Float = 0
        for hop in 100..<loud.count {
            for band in 0..<FramePicture.bandCount { largest = max(largest, abs(loud[hop][band] - quiet[hop][band])) }
        }
        #expect(largest <= 0.3, "columns differ by up to \(largest) dB")
    }

    @Test func theFloorFollowsTheLastThirtySeconds() throws {
        let signal = Self.noise(seconds: 35, amplitude: 0.1) + Self.noise(seconds: 40, amplitude: 0.01, seed: 9)
        let columns = try Self.columns(of: signal)
        func median(_ range: Range<Int>) -> Float {
            let values = columns[range].flatMap { $0 }.sorted()
            return values[values.count / 2]
        }
        // Just after a 20 dB drop the bands lie below the loud floor (clipped at −10 dB) ...
        #expect(median(3510..<3590) == FramePicture.clipRange.lowerBound)
        // ... until the last 30 s are mostly quiet: a floor of 80 % quiet hops is a quiet one.
        #expect(median(3510 + 2500..<3510 + 2590) > -1)
        #expect(median(7000..<7490) > 0 && median(7000..<7490) < 4)
    }
}
