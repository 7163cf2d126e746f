import FootstepClassifier
import FootstepDSP
import Foundation
import Testing

/// The neighbour features (`NeighbourContext`) by their definitions: an impact
/// against the impacts of the last 3 s before it, through the public extractor.
@Suite("Classifier features: the impacts before an event")
struct NeighbourContextTests {
    static let rate = FeaturePinTests.rate
    static let preRoll = FeaturePinTests.preRoll

    /// A knock: a 2 kHz click over the same noise, nothing like a step's thud.
    static func knock(seed: UInt64) -> [Float] {
        var generator = ModelContractTests.Generator(state: seed)
        return (0..<(preRoll + 8000)).map { i -> Float in
            let t = Double(i - preRoll) / rate
            var x = 0.002 * generator.normal()
            if t >= 0 { x += 0.5 * exp(-t / 0.004) * sin(2 * .pi * 2000 * t) }
            return Float(x)
        }
    }

    /// Extracts the events (onset seconds, LAFmax above a 41 dB background,
    /// segment) in order and returns each one's neighbour features by name.
    typealias Impact = (onset: Double, laf: Double, segment: [Float])

    static func features(_ events: [Impact]) -> [[String: Double]] {
        var extractor = EventFeatureExtractor()
        return events.map { event in
            let level: Double = 41 + event.laf
            let impact = ImpactEvent(
                onsetFrame: Int64(event.onset * rate), durationFrames: 3_520, peakDBFS: -11, lafMax: level,
                lcfMax: level + 10, sel: level - 5, backgroundLAF: 41, strength: 14, detectorConfidence: 0.9,
                framesSincePreviousOnset: nil)
            event.segment.withUnsafeBufferPointer {
                extractor.extract(impact, segment: $0, preRollFrames: preRoll, sampleRate: rate)
            }
            return Dictionary(uniqueKeysWithValues: zip(EventFeatures.names, extractor.values))
        }
    }

    @Test func theFirstImpactHasNoNeighbours() throws {
        let impact: Impact = (10, 27.5, FeaturePinTests.step(seed: 11))
        let first = try #require(Self.features([impact]).first)
        #expect(first["nearest_band_distance_db"] == 30)
        #expect(first["neighbour_laf_spread_db"] == 30)
        #expect(first["similar_neighbours"] == 0)
        #expect(first["laf_minus_neighbours_db"] == 0)
        #expect(first["strength_minus_neighbours_log"] == 0)
        #expect(abs(first["previous_band_distance_log"]! - log10(30)) < 1e-12)
        #expect(first["similar_gap_s"] == 5)
        #expect(first["similar_irregularity"] == 2)
    }

    @Test func aKnockAfterAWalkIsLouderAndUnlikeIt() throws {
        let walk: [Impact] = (0..<3).map { i -> Impact in
            let onset: Double = 10 + 0.55 * Double(i)
            return (onset, 27.5, FeaturePinTests.step(seed: UInt64(11 + i)))
        }
        let knock: Impact = (11.4, 37.5, Self.knock(seed: 20))
        let values = Self.features(walk + [knock])
        let step = values[2]
        let knockValues = values[3]
        #expect(step["similar_neighbours"] == 2)
        #expect(abs(step["similar_gap_s"]! - 0.55) < 1e-9)
        #expect(abs(step["similar_irregularity"]!) < 1e-9, "on the beat of the two before it")
        #expect(values[1]["similar_irregularity"] == 2, "one similar neighbour: no beat yet")
        #expect(step["laf_minus_neighbours_db"] == 0)
        #expect(step["nearest_band_distance_db"]! < 4)
        #expect(knockValues["similar_neighbours"] == 0)
        #expect(knockValues["similar_gap_s"] == 5)
        #expect(knockValues["similar_irregularity"] == 2)
        #expect(knockValues["laf_minus_neighbours_db"] == 10)
        #expect(knockValues["neighbour_laf_spread_db"] == 10)
        #expect(knockValues["nearest_band_distance_db"]! > 4)
        #expect(knockValues["nearest_band_distance_db"]! <= pow(10, knockValues["previous_band_distance_log"]!) + 1e-9)
    }

    @Test func aStepOffTheBeatIsIrregular() throws {
        let onsets: [Double] = [10, 10.5, 11.25]
        let steps: [Impact] = onsets.enumerated().map { ($1, 27.5, FeaturePinTests.step(seed: UInt64(60 + $0))) }
        let values = Self.features(steps)
        #expect(abs(values[2]["similar_irregularity"]! - 0.25 / 0.75) < 1e-9, "gaps 0.75 s after 0.5 s")
    }

    @Test func onlyTheLatestEightImpactsOfTheLastThreeSecondsCount() throws {
        let fast: [Impact] = (0..<10).map { i -> Impact in
            let onset: Double = 10 + 0.3 * Double(i)
            return (onset, 27.5, FeaturePinTests.step(seed: UInt64(30 + i)))
        }
        let lastOnset: Double = 10 + 0.3 * 9
        let later: Impact = (lastOnset + 3.1, 27.5, FeaturePinTests.step(seed: 50))
        let values = Self.features(fast + [later])
        #expect(values[9]["similar_neighbours"] == 8)
        #expect(values[10]["similar_neighbours"] == 0)
        #expect(values[10]["nearest_band_distance_db"] == 30)
    }
}
