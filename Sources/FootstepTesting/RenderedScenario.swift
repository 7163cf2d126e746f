import FootstepAudio

/// A synthetic scenario rendered completely into memory (interleaved), with its ground truth.
public struct RenderedScenario {
    public var samples: [Float]
    public var truth: [GroundTruthEvent]
    public var sampleRate: Int

    /// Renders `spec` (`SynthesisScenario(parsing:)`, e.g. `walking:seed=3,duration=60`).
    public init(_ spec: String) throws {
        let source = try SyntheticSource(spec: spec)
        samples = try readToEnd(source)
        truth = source.groundTruth
        sampleRate = source.format.sampleRate
    }
}
