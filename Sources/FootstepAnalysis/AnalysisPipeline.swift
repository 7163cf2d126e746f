import FootstepAudio
import FootstepClassifier
import FootstepDSP

/// What the pipeline reports as it goes.
public enum AnalysisOutput: Sendable {
    /// A detected, classified impact whose label is settled.
    case event(AnalyzedEvent)
    /// A detected, classified impact reported before its neighbours have been
    /// heard, with the classifier's label: a revision that `settles` it follows.
    case provisional(AnalyzedEvent)
    /// A completed level interval (per minute by default).
    case levels(IntervalLevels)
    /// An event reported earlier gets its settled label, or another type from its whole bout.
    case revision(TypeRevision)
}

/// The analysis of one stream: optional EQ prefilter → mono mixdown → levels
/// (dB(A), dB(C)) → onset detector → classifier. The same code runs on a
/// live device, a file and the synthetic scenario.
///
/// Stages in one thread: `LevelStage` (EQ, mixdown, level meter) hands each
/// 10 ms hop to `DetectionStage`, which is `OnsetStage` (detector, the frame
/// picture) then `EventStage` (classifier, gait context, frame evidence).
/// Offline analysis (`ParallelAnalysisRunner`) runs the same three stages on
/// three threads.
///
/// Plain synchronous code, a pure function of the samples: all buffers are
/// allocated in `init`; `process` does not allocate.
public struct AnalysisPipeline<Classifier: EventClassifier>: ~Copyable {
    public let format: AudioFormat
    public let configuration: AnalysisConfiguration
    private var levels: LevelStage
    private var detection: DetectionStage<Classifier>

    /// The level meter (running LAeq, current levels).
    public var meter: LevelMeter { levels.meter }
    /// The classifier stage.
    public var classifier: Classifier { detection.classifier }
    /// Frames processed so far.
    public var framesProcessed: Int64 { levels.framesProcessed }

    /// - Parameter maximumBlockFrames: the most frames one `process` call will get.
    public init(
        format: AudioFormat, configuration: AnalysisConfiguration, classifier: consuming Classifier,
        maximumBlockFrames: Int = 8192
    ) throws(DSPError) {
        let detection = try DetectionStage(
            sampleRate: Double(format.sampleRate), configuration: configuration, classifier: classifier)
        levels = try LevelStage(
            format: format, configuration: configuration, hopFrames: detection.hopFrames,
            maximumBlockFrames: maximumBlockFrames)
        self.detection = detection
        self.format = format
        self.configuration = configuration
    }

    /// Analyses `frames` interleaved frames; `output` receives events and level
    /// intervals as they complete. `samples` is not modified.
    public mutating func process(
        _ samples: UnsafeBufferPointer<Float>, frames: Int, output: (AnalysisOutput) -> Void
    ) {
        let block = levels.prefilter(samples, frames: frames)
        var frame = 0
        while let hopLevels = levels.nextHop(from: block, frames: frames, at: &frame, interval: { output(.levels($0)) }) {
            detection.process(hop: levels.hop, lowBand: levels.lowBand, levels: hopLevels, output: output)
        }
    }

    /// Flushes the last partial interval and any open event at the end of a stream.
    public mutating func finish(output: (AnalysisOutput) -> Void) {
        detection.finish(output: output)
        levels.finish { output(.levels($0)) }
    }
}
