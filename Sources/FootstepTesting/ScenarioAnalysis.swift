import FootstepAnalysis
import FootstepAudio
import FootstepClassifier

/// Runs a synthetic scenario through the analysis pipeline and scores the
/// detections against the scenario's own ground truth.
public struct ScenarioAnalysis {
    public var result: FileAnalysisResult
    public var groundTruth: [GroundTruthEvent]

    public init(
        _ scenario: SynthesisScenario, configuration: AnalysisConfiguration = AnalysisConfiguration()
    ) throws {
        let source = try SyntheticSource(scenario: scenario)
        groundTruth = source.groundTruth
        result = try FileAnalysis.analyse(source: source, configuration: configuration, classifier: DetectorOnlyClassifier())
    }

    /// Detection score of all events against the footsteps of the ground truth.
    public func footstepDetectionScore(tolerance: Double = 0.05) -> DetectionScore {
        DetectionScore(
            detected: result.events.map(\.onsetSeconds),
            truth: groundTruth.filter { $0.kind == .footstep }.map(\.onset), tolerance: tolerance)
    }

    /// Detection score of all events against every ground-truth impact.
    public func impactDetectionScore(tolerance: Double = 0.05) -> DetectionScore {
        DetectionScore(detected: result.events.map(\.onsetSeconds), truth: groundTruth.map(\.onset), tolerance: tolerance)
    }

    /// Detections per hour of audio.
    public var detectionsPerHour: Double { Double(result.events.count) / result.durationSeconds * 3600 }
}
