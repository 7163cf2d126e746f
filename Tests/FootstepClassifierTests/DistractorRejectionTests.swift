import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Testing

/// Impacts that are not footsteps (door slams, knocks, drops, chair scrapes,
/// music bass over music and pink noise, about 900 an hour) through the whole
/// pipeline: how many come out labelled as footsteps. This seed gives none
/// with gait context and 12 an hour without (4 in its 20 minutes) with the
/// shipped model (session 50); none and 75 an hour with the
/// model of session 30 and the rules of session 33 (21 an hour with gait
/// context before its memory and sure-company rules); the bound is the
/// issue's aim of 20 an hour. 36 and 93 with the model of session 28,
/// which weighs recorded drum hits 3×; 36 and 177
/// with session 22's; 27 and 282 with session 20's, trained on clips
/// whose truth missed some footfalls; 0 and 144 with the model before either,
/// which fitted the synthesizer's sounds. Its false footsteps are a bass line
/// at exactly 120 bpm, which the rhythm rule takes for a walk. The bound
/// catches a regression of the kind, not a few events either way. The
/// synthesizer is a family the model trains on; false footsteps on unseen
/// families are measured by `make eval` (docs/evaluation.md).
/// `tools/eval/train_folds.py` runs this scenario (seed, 20 minutes, bound)
/// over every model it trains and will not install one over the bound: keep
/// the two alike.
@Suite struct DistractorRejectionTests {
    static func footstepsPerHour(_ scenario: SynthesisScenario, gaitContext: Bool) throws -> Double {
        var configuration = AnalysisConfiguration()
        configuration.gaitContext = gaitContext
        let result = try FileAnalysis.analyse(
            source: try SyntheticSource(scenario: scenario), configuration: configuration,
            classifier: try FootstepModelClassifier())
        let footsteps = result.events.filter { $0.kind == .footstep }.count
        return Double(footsteps) / result.durationSeconds * 3600
    }

    @Test func gaitContextKeepsDistractorsFromCountingAsFootsteps() throws {
        var scenario = SynthesisScenario(.distractors, seed: 9_200_001)
        scenario.duration = 1200
        let withContext = try Self.footstepsPerHour(scenario, gaitContext: true)
        let classifierAlone = try Self.footstepsPerHour(scenario, gaitContext: false)
        print("distractors labelled as footsteps: \(withContext)/h with gait context, \(classifierAlone)/h without")
        #expect(withContext <= 20, "\(withContext) false footsteps per hour")
        #expect(withContext * 2 <= classifierAlone, "gait context: \(withContext)/h, classifier alone: \(classifierAlone)/h")
    }
}
