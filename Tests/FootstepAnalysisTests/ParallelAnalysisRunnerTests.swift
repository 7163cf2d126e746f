import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepDSP
import FootstepTesting
import Foundation
import Testing

/// The three-thread offline analysis against the one-thread pipeline: the
/// same outputs, in the same order, whatever the batch sizes, with and
/// without a frame step network.
@Suite("Parallel offline analysis")
struct ParallelAnalysisRunnerTests {
    /// One output reduced to something comparable.
    enum Output: Equatable {
        case event(AnalyzedEvent)
        case provisional(AnalyzedEvent)
        case levels(IntervalLevels)
        case revision(TypeRevision)

        init(_ output: AnalysisOutput) {
            switch output {
            case let .event(event): self = .event(event)
            case let .provisional(event): self = .provisional(event)
            case let .levels(levels): self = .levels(levels)
            case let .revision(revision): self = .revision(revision)
            }
        }
    }

    static func scenario(channels: Int) -> SynthesisScenario {
        var scenario = SynthesisScenario(.mixed, seed: 11)
        scenario.duration = 40
        scenario.channels = channels
        return scenario
    }

    static func configuration(equalizer: Bool) -> AnalysisConfiguration {
        var configuration = AnalysisConfiguration()
        configuration.levelIntervalSeconds = 7  // several intervals, not aligned with hops or batches
        if equalizer {
            configuration.equalizer = [[EQBand(kind: .peaking, frequency: 120, gainDB: 6, q: 1)]]
        }
        return configuration
    }

    /// The bundled model, or the same with an 8-channel frame step network of
    /// the trained shape and seeded random weights, judged by the bundled
    /// decision (its output wanders over the whole range, so it rescues,
    /// vetoes and adds).
    static func model(network: Bool) throws -> FootstepModel {
        var model = try FootstepModel.bundled()
        guard network else { return model }
        var random = SeededRandom(seed: 23)
        let frame = FootstepModel.FrameNetwork.trainedShape(
            channels: 8, lookahead: 30, decision: model.frameNetwork?.decision
        ) { fanIn in
            Double.random(in: -1...1, using: &random) * (3 / Double(fanIn)).squareRoot()
        }
        model.frameNetwork = frame
        try model.validate()
        return model
    }

    static func sequential(_ scenario: SynthesisScenario, _ configuration: AnalysisConfiguration, model: FootstepModel)
        throws -> ([Output], Int64, Double)
    {
        let source = try SyntheticSource(scenario: scenario)
        var pipeline = try AnalysisPipeline(
            format: source.format, configuration: configuration, classifier: try FootstepModelClassifier(model: model))
        var outputs: [Output] = []
        try AnalysisRunner.run(source, pipeline: &pipeline, blockFrames: 1000, output: { outputs.append(Output($0)) })
        return (outputs, pipeline.framesProcessed, pipeline.meter.runningLAeq)
    }

    @Test(arguments: [(1, false, 64, 4, false), (2, true, 3, 2, false), (1, true, 1, 2, false), (1, false, 64, 4, true), (1, false, 5, 3, true)])
    func givesTheSameOutputsInTheSameOrderAsThePipeline(
        channels: Int, equalizer: Bool, hopsPerBatch: Int, slots: Int, network: Bool
    ) throws {
        let scenario = Self.scenario(channels: channels)
        let configuration = Self.configuration(equalizer: equalizer)
        let model = try Self.model(network: network)
        let (expected, frames, laeq) = try Self.sequential(scenario, configuration, model: model)

        var outputs: [Output] = []
        var progress: [Int64] = []
        let summary = try ParallelAnalysisRunner.run(
            try SyntheticSource(scenario: scenario), configuration: configuration,
            classifier: try FootstepModelClassifier(model: model),
            blockFrames: 777, hopsPerBatch: hopsPerBatch, slotCount: slots,
            output: { outputs.append(Output($0)) }, progress: { progress.append($0) })

        #expect(expected.count > 30, "too few outputs to compare")
        if network {
            // The network had its say: the same audio without it reports otherwise.
            let (plain, _, _) = try Self.sequential(scenario, configuration, model: try Self.model(network: false))
            #expect(plain != expected, "the random frame network changed nothing")
        }
        #expect(outputs == expected)
        #expect(summary.framesProcessed == frames)
        #expect(summary.framesProcessed == Int64(scenario.frameCount))
        #expect(summary.laeq == laeq)
        #expect(summary.sourceError == nil)
        #expect(progress == progress.sorted() && !progress.isEmpty)
    }

    @Test func aTruncatedFileReportsItsErrorAfterAnalysingWhatWasRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("cut.wav")
        var scenario = SynthesisScenario(.walking, seed: 5)
        scenario.duration = 30
        let writer = try AudioFileWriter(
            path: path, format: AudioFormat(sampleRate: scenario.sampleRate, channels: 1), container: .wav)
        let source = try SyntheticSource(scenario: scenario)
        var buffer = [Float](repeating: 0, count: 4096)
        while true {
            let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            if frames == 0 { break }
            try buffer.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[0..<frames])) }
        }
        try writer.close()
        // Cut the file in the middle of its data: the header still announces all of it.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: 44 + UInt64(scenario.frameCount))
        try handle.close()

        let result = try FileAnalysis.analyse(path: path, configuration: AnalysisConfiguration())
        guard case .truncatedFile = result.sourceError else {
            Issue.record("expected a truncated-file error, got \(String(describing: result.sourceError))")
            return
        }
        #expect(result.durationSeconds > 10 && result.durationSeconds < 20)
        #expect(result.events.count > 10)
    }
}
