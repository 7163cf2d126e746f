import FootstepDSP
import Foundation
import Testing

@testable import FootstepClassifier

/// The impact's timbre: measured by the classifier, independent of the level,
/// and different for sounds that differ.
@Suite struct EventTimbreTests {
    @Test func distanceIsTheMeanAbsoluteBandDifference() {
        let a = EventTimbre(bands: SIMD8(-20, -12, -6, -3, -9, -15, -22, -30))
        var b = a
        b.bands[1] += 6
        b.bands[6] -= 6
        #expect(a.distance(to: a) == 0)
        #expect(a.distance(to: b) == 1.5)
        #expect(b.distance(to: a) == 1.5)
    }

    /// `amplitude` × a decaying sine at `frequency` from 800 frames in, over faint noise.
    static func segment(frequency: Double, amplitude: Float) -> [Float] {
        var state: UInt64 = 11
        return (0..<8800).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Float(Double(state >> 11) / Double(1 << 53) - 0.5) * 1e-4
            let t = Double(i - 800) / 16000
            let impact: Double = t >= 0 ? exp(-t / 0.04) * sin(2 * Double.pi * frequency * t) : 0
            return amplitude * (noise + Float(impact))
        }
    }

    static func timbre(of segment: [Float]) throws -> EventTimbre? {
        var classifier = try FootstepModelClassifier()
        let event = ImpactEvent(
            onsetFrame: 16000, durationFrames: 3200, peakDBFS: -14, lafMax: 70, lcfMax: 82, sel: 66, backgroundLAF: 40,
            strength: 12, detectorConfidence: 0.9, framesSincePreviousOnset: nil)
        return segment.withUnsafeBufferPointer {
            classifier.classify(event, segment: $0, preRollFrames: 800, sampleRate: 16000).timbre
        }
    }

    @Test func theClassifierMeasuresTheTimbreWhateverTheLevel() throws {
        let thud = try #require(try Self.timbre(of: Self.segment(frequency: 90, amplitude: 0.5)))
        let quieter = try #require(try Self.timbre(of: Self.segment(frequency: 90, amplitude: 0.005)))
        let click = try #require(try Self.timbre(of: Self.segment(frequency: 2500, amplitude: 0.5)))
        #expect(thud.distance(to: quieter) < 0.5, "40 dB quieter, the same sound")
        #expect(thud.distance(to: click) > 10, "a thud and a click")
        // Levels relative to the bands' total: the loudest band is near 0 dB, none above it.
        #expect(thud.bands.max() <= 0 && thud.bands.max() > -3)
        #expect(thud.bands[2] == thud.bands.max(), "90 Hz is in the 80–125 Hz band")
    }
}
