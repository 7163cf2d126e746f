import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Testing

/// Impacts that are not footsteps (door slams, knocks, drops, chair scrapes,
/// music bass over music and pink noise, about 900 an hour) through the whole
/// pipeline: how many come out labelled as footsteps. Over nine one-hour
/// seeds (release build, session-5 model, session-6 detector, session-7 gait
/// rules): 14.1 (2-34) an hour with gait context, 149 without; the issue's
/// aim is 20. This seed gives 0 and 144 (6 in session 6, 21 and 162 in
/// session 5).
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
        #expect(withContext * 3 <= classifierAlone, "gait context: \(withContext)/h, classifier alone: \(classifierAlone)/h")
    }
}
