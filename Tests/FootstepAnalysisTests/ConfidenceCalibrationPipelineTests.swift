import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Testing

/// The model's confidence calibration through the whole pipeline: every
/// report's confidence is mapped, no label changes.
@Suite struct ConfidenceCalibrationPipelineTests {
    /// One report: what it says, as a consumer of the outputs sees it.
    struct Report: Equatable {
        var onsetFrame: Int64
        var kind: EventKind
        var type: FootstepType
        var confidence: Double
    }

    /// Every event, provisional report and revision of the mixed scenario's first 40 s.
    static func reports(model: FootstepModel) throws -> [Report] {
        var scenario = SynthesisScenario(.mixed, seed: 11)
        scenario.duration = 40
        let source = try SyntheticSource(scenario: scenario)
        var pipeline = try AnalysisPipeline(
            format: source.format, configuration: AnalysisConfiguration(),
            classifier: try FootstepModelClassifier(model: model))
        var reports: [Report] = []
        func take(_ output: AnalysisOutput) {
            switch output {
            case let .event(event), let .provisional(event):
                let m = event.measurements
                reports.append(Report(onsetFrame: event.onsetFrame, kind: m.kind, type: m.type, confidence: m.confidence))
            case let .revision(r):
                reports.append(Report(onsetFrame: r.onsetFrame, kind: r.kind, type: r.type, confidence: r.confidence))
            case .levels:
                break
            }
        }
        try AnalysisRunner.run(source, pipeline: &pipeline, output: take)
        return reports
    }

    @Test func everyReportCarriesTheCalibratedConfidenceOfTheSameLabel() throws {
        var plain = try FootstepModel.bundled()
        plain.confidenceCalibration = nil
        // Types are right 20 % of the time at any confidence, `other` 70 %.
        var calibrated = plain
        calibrated.confidenceCalibration = ConfidenceCalibration(
            curves: Array(repeating: .init(x: [0], y: [0.2]), count: 4) + [.init(x: [0], y: [0.7])])
        let before = try Self.reports(model: plain)
        let after = try Self.reports(model: calibrated)
        #expect(before.count >= 20, "too few reports to judge: \(before.count)")
        #expect(before.map(\.onsetFrame) == after.map(\.onsetFrame))
        #expect(before.map(\.kind) == after.map(\.kind))
        #expect(before.map(\.type) == after.map(\.type))
        #expect(Set(before.map(\.kind)) == [.footstep, .other], "the scenario gives both kinds")
        for (b, a) in zip(before, after) {
            switch (a.kind, a.type) {
            case (.other, _): #expect(a.confidence == 0.7)
            case (.footstep, .unknown): #expect(a.confidence == b.confidence)
            // A named type is never reported below 0.5, however poor its curve.
            case (.footstep, _): #expect(a.confidence == 0.5, "\(b.confidence) → \(a.confidence)")
            }
        }
    }
}
