import FootstepAnalysis
import FootstepAudio
import FootstepTesting
import Testing

/// The onset detector against the synthesizer's ground truth (±50 ms).
@Suite("Onset detection accuracy on synthesized scenarios")
struct DetectorAccuracyTests {
    static func scenario(_ name: SynthesisScenario.Name, seed: UInt64, snr: Double, spread: Double, minutes: Double) -> SynthesisScenario {
        var scenario = SynthesisScenario(name, seed: seed)
        scenario.duration = minutes * 60
        scenario.snrDB = snr
        scenario.snrSpreadDB = spread
        scenario.ceiling = true
        return scenario
    }

    @Test(arguments: [SynthesisScenario.Name.walking, .running, .stomping, .shuffling, .mixed])
    func throughACeilingAtTenDecibelsAndMoreF1IsAtLeast95(name: SynthesisScenario.Name) throws {
        let analysis = try ScenarioAnalysis(Self.scenario(name, seed: 101, snr: 14, spread: 4, minutes: 3))
        let score = analysis.footstepDetectionScore()
        #expect(score.truePositives >= 40, "too few steps to judge: \(score)")
        #expect(score.f1 >= 0.95, "\(name): \(score)")
        #expect(score.medianAbsoluteOnsetError <= 0.015, "\(name): \(score)")
    }

    /// At 0–5 dB the target is F1 >= 0.85; the detector reaches 0.8–0.84 on
    /// ceiling-transmitted steps today (issue 2 stays open). This guards the
    /// current level against regressions and precision against noise.
    @Test(arguments: [SynthesisScenario.Name.walking, .running, .stomping, .shuffling, .mixed])
    func throughACeilingAtZeroToFiveDecibelsDetectionsStayPrecise(name: SynthesisScenario.Name) throws {
        let analysis = try ScenarioAnalysis(Self.scenario(name, seed: 202, snr: 2.5, spread: 2.5, minutes: 3))
        let score = analysis.footstepDetectionScore()
        #expect(score.f1 >= 0.7, "\(name): \(score)")
        #expect(score.precision >= 0.75, "\(name): \(score)")
    }

    @Test func stationaryBackgroundsAloneGiveAtMostTwentyDetectionsPerHour() throws {
        var scenario = try SynthesisScenario(parsing: "background:backgrounds=pink+hum50@-10")
        scenario.seed = 303
        scenario.duration = 15 * 60
        let analysis = try ScenarioAnalysis(scenario)
        #expect(analysis.detectionsPerHour <= 20, "\(analysis.result.events.count) detections in 15 min")
    }
}
