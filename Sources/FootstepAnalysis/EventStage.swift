import FootstepAudio
import FootstepClassifier
import FootstepDSP

/// The detection stage's second half: each event `OnsetStage` found →
/// its segment → classifier → gait context → frame evidence (the frame step
/// network over the hop's picture column, and the fusion). It keeps its own
/// copy of the recent samples, as many as the detector keeps, so it cuts the
/// same segments while the detector runs ahead on another thread.
///
/// Plain synchronous code; buffers are allocated in `init`.
struct EventStage<Classifier: EventClassifier>: ~Copyable {
    private(set) var classifier: Classifier
    private var history: SampleHistory
    private var gaitContext: GaitContextRefiner?
    private var frameEvidence: FrameEvidence?
    private var segment: [Float]
    private let preRollFrames: Int
    private let sampleRate: Double
    private let minimumConfidence: Double

    /// Whether `process` needs the hop's picture column (the model has a frame
    /// step network and the configuration uses it).
    static func usesPicture(configuration: AnalysisConfiguration, classifier: Classifier) -> Bool {
        configuration.frameNetwork && classifier.frameNetwork != nil
    }

    /// - Parameters:
    ///   - hopFrames: the detector's hop.
    ///   - historyCapacity: the detector's `history.capacity`.
    init(
        sampleRate: Double, hopFrames: Int, historyCapacity: Int, configuration: AnalysisConfiguration,
        classifier: consuming Classifier
    ) {
        if Self.usesPicture(configuration: configuration, classifier: classifier), let model = classifier.frameNetwork {
            frameEvidence = FrameEvidence(
                model: model, hopFrames: hopFrames, sampleRate: sampleRate,
                settledDelay: configuration.gaitSettlementDelay, calibrationOffset: configuration.calibrationOffsetDB)
        } else {
            frameEvidence = nil
        }
        if configuration.gaitContext {
            gaitContext = GaitContextRefiner(
                boutTyper: classifier.boutTyper, walks: configuration.walks, memory: configuration.memory)
        }
        self.classifier = classifier
        self.sampleRate = sampleRate
        history = SampleHistory(minimumCapacity: historyCapacity)
        minimumConfidence = configuration.minimumConfidence
        preRollFrames = Int(configuration.segmentPreRoll * sampleRate)
        segment = [Float](repeating: 0, count: preRollFrames + Int(configuration.segmentLength * sampleRate))
    }

    /// Takes one hop's samples, the events the detector closed in it and what
    /// else it made of it, and (when the stage uses one) its picture column;
    /// `output` receives the events that are settled, with `minimumConfidence` applied.
    mutating func process(
        hop: UnsafeBufferPointer<Float>, events: UnsafeBufferPointer<ImpactEvent>, detected: OnsetStage.Hop,
        column: UnsafeBufferPointer<Float>, levels: BlockLevels, output: (AnalysisOutput) -> Void
    ) {
        history.append(hop)
        let minimum = minimumConfidence
        func confident(_ item: AnalysisOutput) { output(item.requiringConfidence(minimum)) }
        guard var evidence = frameEvidence.take() else { return classify(events, detected, output: confident) }
        classify(events, detected) { evidence.accept($0, output: confident) }
        evidence.process(column: column, levels: levels, background: detected.background, output: confident)
        frameEvidence = consume evidence
    }

    /// Takes the events the detector closed at the end of the stream, then
    /// releases everything still held.
    mutating func finish(events: UnsafeBufferPointer<ImpactEvent>, output: (AnalysisOutput) -> Void) {
        let minimum = minimumConfidence
        func confident(_ item: AnalysisOutput) { output(item.requiringConfidence(minimum)) }
        guard var evidence = frameEvidence.take() else { return finishClassifying(events, output: confident) }
        finishClassifying(events) { evidence.accept($0, output: confident) }
        evidence.finish(output: confident)
        frameEvidence = consume evidence
    }

    private mutating func classify(
        _ events: UnsafeBufferPointer<ImpactEvent>, _ detected: OnsetStage.Hop, output: (AnalysisOutput) -> Void
    ) {
        for event in events { emit(event, output: output) }
        gaitContext?.release(knownUntil: Double(detected.earliestUnreportedOnsetFrame) / sampleRate, output: output)
    }

    private mutating func finishClassifying(_ events: UnsafeBufferPointer<ImpactEvent>, output: (AnalysisOutput) -> Void) {
        for event in events { emit(event, output: output) }
        gaitContext?.finish(output: output)
    }

    private mutating func emit(_ event: ImpactEvent, output: (AnalysisOutput) -> Void) {
        history.copy(from: event.onsetFrame - Int64(preRollFrames), into: &segment)
        let preRoll = preRollFrames
        let rate = sampleRate
        let classification = segment.withUnsafeBufferPointer { buffer in
            classifier.classify(event, segment: buffer, preRollFrames: preRoll, sampleRate: rate)
        }
        let analyzed = AnalyzedEvent(event, classification: classification, sampleRate: rate)
        if gaitContext != nil {
            gaitContext!.add(analyzed, output: output)
        } else {
            output(.event(analyzed))
        }
    }
}

extension AnalysisOutput {
    /// An event or a revision with ``AnalyzedEvent/requireConfidence(_:)``
    /// applied (a footstep below `minimum` has type `unknown`); levels unchanged.
    func requiringConfidence(_ minimum: Double) -> AnalysisOutput {
        switch self {
        case var .event(event):
            event.requireConfidence(minimum)
            return .event(event)
        case var .provisional(event):
            event.requireConfidence(minimum)
            return .provisional(event)
        case var .revision(revision):
            if revision.kind == .footstep, revision.confidence < minimum { revision.type = .unknown }
            return .revision(revision)
        case .levels:
            return self
        }
    }
}
