import FootstepAudio
import FootstepClassifier
import FootstepDSP

/// The second half of the analysis in one thread: `OnsetStage` (onset
/// detector, and the frame step network's picture when the model has one)
/// then `EventStage` (segment → classifier → gait context → frame evidence),
/// one 10 ms hop (with the level meter's figures for it) at a time. Offline
/// analysis runs the two halves on two threads of its three (`ParallelAnalysisRunner`).
///
/// Plain synchronous code; buffers are allocated in `init`.
struct DetectionStage<Classifier: EventClassifier>: ~Copyable {
    private var onsets: OnsetStage
    private var classification: EventStage<Classifier>
    /// The hop's events and picture column, from one half to the other.
    private let events: UnsafeMutableBufferPointer<ImpactEvent>
    private let column: UnsafeMutableBufferPointer<Float>

    var classifier: Classifier { classification.classifier }
    var hopFrames: Int { onsets.hopFrames }

    init(sampleRate: Double, configuration: AnalysisConfiguration, classifier: consuming Classifier) throws(DSPError) {
        let onsets = try OnsetStage(
            detectorConfiguration: configuration.detectorConfiguration(sampleRate: sampleRate),
            picture: EventStage.usesPicture(configuration: configuration, classifier: classifier))
        classification = EventStage(
            sampleRate: sampleRate, hopFrames: onsets.hopFrames, configuration: configuration, classifier: classifier)
        self.onsets = onsets
        events = .allocate(capacity: OnsetStage.maximumEventsPerHop)
        column = .allocate(capacity: FramePicture.bandCount)
        column.initialize(repeating: 0)
    }

    deinit {
        events.deallocate()
        column.deallocate()
    }

    /// Analyses one hop with its low band and levels (`LevelStage`); `output`
    /// receives the events that ended in it, with `minimumConfidence` applied.
    mutating func process(
        hop: UnsafeBufferPointer<Float>, lowBand: UnsafeBufferPointer<Float>, levels: BlockLevels,
        output: (AnalysisOutput) -> Void
    ) {
        let detected = onsets.process(
            hop: hop, lowBand: lowBand, levels: levels, events: events.baseAddress!, column: column.baseAddress!)
        classification.process(
            events: UnsafeBufferPointer(rebasing: events[0..<detected.eventCount]), detected: detected,
            column: UnsafeBufferPointer(column), levels: levels, history: onsets.detector.history, output: output)
    }

    /// Closes an event still open at the end of the stream.
    mutating func finish(output: (AnalysisOutput) -> Void) {
        let count = onsets.finish(events: events.baseAddress!)
        classification.finish(
            events: UnsafeBufferPointer(rebasing: events[0..<count]), history: onsets.detector.history, output: output)
    }
}
