import FootstepAudio

/// A synthetic scenario rendered completely into memory (interleaved), with its ground truth.
public struct RenderedScenario {
    public var samples: [Float]
    public var truth: [GroundTruthEvent]
    /// The rendered stream's format.
    public var format: AudioFormat
    public var sampleRate: Int { format.sampleRate }

    /// Renders `spec` (`SynthesisScenario(parsing:)`, e.g. `walking:seed=3,duration=60`).
    public init(_ spec: String) throws {
        let source = try SyntheticSource(spec: spec)
        samples = try readToEnd(source)
        truth = source.groundTruth
        format = source.format
    }

    /// Writes the first `frames` frames (all of them by default) to a WAV file at
    /// `path`, as the daemon's rolling file holds them; returns how many.
    @discardableResult
    public func writeWAV(to path: String, frames: Int? = nil) throws -> Int64 {
        let count = min(frames ?? Int.max, samples.count / format.channels)
        let writer = try AudioFileWriter(path: path, format: format, container: .wav)
        try samples.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[..<(count * format.channels)])) }
        try writer.close()
        return Int64(count)
    }
}
