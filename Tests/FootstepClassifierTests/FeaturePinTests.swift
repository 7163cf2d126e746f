import FootstepClassifier
import FootstepDSP
import Foundation
import Testing

/// The feature vector of a fixed walk, pinned. The shipped model was trained on
/// these definitions: a change to any of them (a window, a band edge, a
/// clamp) makes the model silently wrong unless `EventFeatures.version` is
/// bumped and the model retrained. When this test fails after an intended
/// change, bump the version, retrain (`docs/classifier.md`) and pin the new values.
@Suite("Classifier features (pinned)")
struct FeaturePinTests {
    static let rate = 16000.0
    static let preRoll = 800

    /// One step: a heel thud (60 and 180 Hz, decaying in 40–60 ms) and a toe
    /// contact 120 ms later, 3.5 dB softer, over seeded noise; 50 ms before the
    /// onset to 500 ms after it.
    static func step(seed: UInt64) -> [Float] {
        var generator = ModelContractTests.Generator(state: seed)
        return (0..<(preRoll + 8000)).map { i -> Float in
            let t = Double(i - preRoll) / rate
            var x = 0.002 * generator.normal()
            if t >= 0 { x += 0.3 * exp(-t / 0.05) * sin(2 * .pi * 60 * t) + 0.1 * exp(-t / 0.04) * sin(2 * .pi * 180 * t) }
            let toe = t - 0.12
            if toe >= 0 { x += 0.2 * exp(-toe / 0.03) * sin(2 * .pi * 95 * toe) + 0.02 * exp(-toe / 0.01) * sin(2 * .pi * 900 * toe) }
            return Float(x)
        }
    }

    /// The features of the third of three steps 0.55 s apart.
    static func thirdStepFeatures() -> [Double] {
        var extractor = EventFeatureExtractor()
        var previous: Int64?
        for (index, onset) in [Int64(160_000), 168_800, 177_600].enumerated() {
            let event = ImpactEvent(
                onsetFrame: onset, durationFrames: 3_520, peakDBFS: -11, lafMax: 68.5, lcfMax: 79.25, sel: 63.0,
                backgroundLAF: 41.0, strength: 14.0, detectorConfidence: 0.9,
                framesSincePreviousOnset: previous.map { onset - $0 })
            let segment = step(seed: UInt64(index + 11))
            segment.withUnsafeBufferPointer { extractor.extract(event, segment: $0, preRollFrames: preRoll, sampleRate: rate) }
            previous = onset
        }
        return extractor.values
    }

    /// The values of `EventFeatures.names` for `thirdStepFeatures()`, as this
    /// build computes them (FFTW single precision; 1e-4 absolute tolerance).
    static let pinned: [Double] = [
        -12.874366, -0.787528, -15.190196, -10.878123, -27.032985, -37.535017, -42.372291, -41.048923,  // band_*_rel_db
        51.409936, 58.021932, 40.896210, 42.744439, 22.654679, 10.810046, 1.143006, -0.973482,  // band_*_rise_db
        -3.845814, -3.830075, -35.235593, 26.385950,  // centroid, roll-off, flatness, low/high
        0.778151, 1.707570, 2.251638, 2.000000, -3.729102, 0.120000, 7.956313, 0.046609, 0.684266,  // temporal
        -0.657577, 27.500000, 10.750000, -5.500000, 1.146128,  // detector measurements
        -0.259637, 2.000000, 1.818182, 0.000000, 1.818182, 0.477121,  // onset context
        0.097623, 0.000000, 2.000000, 0.000000, 0.000000, -0.692975, 0.550000, 0.000000,  // the impacts before it
    ]

    @Test func theFeaturesOfAFixedWalkAreThePinnedValues() {
        let values = Self.thirdStepFeatures()
        #expect(values.count == EventFeatures.count)
        #expect(Self.pinned.count == EventFeatures.count)
        for (index, name) in EventFeatures.names.enumerated() where index < min(values.count, Self.pinned.count) {
            #expect(abs(values[index] - Self.pinned[index]) < 1e-4, "\(name): \(values[index]), pinned \(Self.pinned[index])")
        }
    }

    /// The features that follow from the detector's measurements and the onset
    /// times alone, by their definitions in `docs/classifier.md`.
    @Test func theDetectorAndContextFeaturesFollowTheirDefinitions() throws {
        let values = Self.thirdStepFeatures()
        func value(_ name: String) throws -> Double { values[try #require(EventFeatures.names.firstIndex(of: name))] }
        let expected: [(String, Double)] = [
            ("duration_log_s", log10(3_520 / Self.rate)), ("laf_above_background_db", 68.5 - 41),
            ("lc_minus_la_db", 79.25 - 68.5), ("sel_minus_laf_db", 63 - 68.5), ("strength_log", log10(14)),
            ("ioi_previous_log_s", log10(0.55)), ("onsets_last_3s", 2), ("local_cadence_hz", 1 / 0.55),
            ("ioi_irregularity", 0), ("bout_cadence_hz", 1 / 0.55), ("bout_steps_log", log10(3)),
            ("contact_peaks", 2), ("second_peak_delay_s", 0.12),
            ("neighbour_laf_spread_db", 0), ("similar_neighbours", 2), ("laf_minus_neighbours_db", 0),
            ("strength_minus_neighbours_log", 0), ("similar_gap_s", 0.55), ("similar_irregularity", 0),
        ]
        for (name, number) in expected {
            #expect(abs(try value(name) - number) < 1e-6, "\(name)")
        }
    }
}
