import FootstepAudio
import FootstepClassifier
import FootstepDSP

/// The detection stage's second half: each event `OnsetStage` found →
/// its segment → classifier → gait context → frame evidence (the frame step
/// network over the hop's picture column, and the fusion) → bout revision
/// (`BoutRevisionStage`, with gait context and a bout typer). It cuts the
/// segments from the recent samples its caller keeps: the detector's own
/// history in one thread, a copy as long as it on the calling thread of
/// `ParallelAnalysisRunner`, while the detector runs ahead on another.
///
/// Plain synchronous code; buffers are allocated in `init`.
struct EventStage<Classifier: EventClassifier>: ~Copyable {
    private(set) var classifier: Classifier
    private var gaitContext: GaitContextRefiner?
    private var frameEvidence: FrameEvidence?
    private var boutRevision: BoutRevisionStage?
    private var segment: [Float]
    private let preRollFrames: Int
    private let sampleRate: Double
    private let minimumConfidence: Double
    private let calibration: ConfidenceCalibration?

    /// Whether `process` needs the hop's picture column (the model has a frame
    /// step network with its decision, and the configuration uses it).
    static func usesPicture(configuration: AnalysisConfiguration, classifier: Classifier) -> Bool {
        configuration.frameNetwork && classifier.frameNetwork != nil && classifier.frameDecision != nil
    }

    /// - Parameter hopFrames: the detector's hop.
    init(sampleRate: Double, hopFrames: Int, configuration: AnalysisConfiguration, classifier: consuming Classifier) {
        if Self.usesPicture(configuration: configuration, classifier: classifier), let model = classifier.frameNetwork,
            let decision = classifier.frameDecision
        {
            frameEvidence = FrameEvidence(
                model: model, decision: decision, hopFrames: hopFrames, sampleRate: sampleRate,
                settledDelay: configuration.gaitSettlementDelay, calibrationOffset: configuration.calibrationOffsetDB)
        } else {
            frameEvidence = nil
        }
        if configuration.gaitContext {
            gaitContext = GaitContextRefiner(walks: configuration.walks, memory: configuration.memory)
            boutRevision = classifier.boutTyper.map {
                BoutRevisionStage(model: $0, holdSeconds: configuration.boutRevisionHold)
            }
        }
        calibration = classifier.confidenceCalibration
        self.classifier = classifier
        self.sampleRate = sampleRate
        minimumConfidence = configuration.minimumConfidence
        preRollFrames = Int(configuration.segmentPreRoll * sampleRate)
        segment = [Float](repeating: 0, count: preRollFrames + Int(configuration.segmentLength * sampleRate))
    }

    /// Takes the events the detector closed in one hop, what else it made of
    /// the hop, and (when the stage uses one) its picture column; `history`
    /// holds the stream up to the end of the hop, as the detector's did.
    /// `output` receives the events that are settled, their confidences
    /// calibrated (the classifier's `confidenceCalibration`), then with
    /// `minimumConfidence` applied.
    mutating func process(
        events: UnsafeBufferPointer<ImpactEvent>, detected: OnsetStage.Hop, column: UnsafeBufferPointer<Float>,
        levels: BlockLevels, history: borrowing SampleHistory, output: (AnalysisOutput) -> Void
    ) {
        let (minimum, calibration) = (minimumConfidence, calibration)
        func confident(_ item: AnalysisOutput) {
            output(item.calibrated(by: calibration).requiringConfidence(minimum))
        }
        var bouts = boutRevision.take()
        func revised(_ item: AnalysisOutput) {
            if bouts != nil { bouts!.accept(item, output: confident) } else { confident(item) }
        }
        if var evidence = frameEvidence.take() {
            classify(events, detected, history: history) { evidence.accept($0, output: revised) }
            evidence.process(column: column, levels: levels, background: detected.background, output: revised)
            frameEvidence = consume evidence
        } else {
            classify(events, detected, history: history, output: revised)
        }
        bouts?.advance(to: Double(detected.earliestUnreportedOnsetFrame) / sampleRate, output: confident)
        boutRevision = bouts
    }

    /// Takes the events the detector closed at the end of the stream, then
    /// releases everything still held.
    mutating func finish(
        events: UnsafeBufferPointer<ImpactEvent>, history: borrowing SampleHistory, output: (AnalysisOutput) -> Void
    ) {
        let (minimum, calibration) = (minimumConfidence, calibration)
        func confident(_ item: AnalysisOutput) {
            output(item.calibrated(by: calibration).requiringConfidence(minimum))
        }
        var bouts = boutRevision.take()
        func revised(_ item: AnalysisOutput) {
            if bouts != nil { bouts!.accept(item, output: confident) } else { confident(item) }
        }
        if var evidence = frameEvidence.take() {
            finishClassifying(events, history: history) { evidence.accept($0, output: revised) }
            evidence.finish(output: revised)
            frameEvidence = consume evidence
        } else {
            finishClassifying(events, history: history, output: revised)
        }
        bouts?.finish(output: confident)
        boutRevision = bouts
    }

    private mutating func classify(
        _ events: UnsafeBufferPointer<ImpactEvent>, _ detected: OnsetStage.Hop, history: borrowing SampleHistory,
        output: (AnalysisOutput) -> Void
    ) {
        for event in events { emit(event, history: history, output: output) }
        gaitContext?.release(knownUntil: Double(detected.earliestUnreportedOnsetFrame) / sampleRate, output: output)
    }

    private mutating func finishClassifying(
        _ events: UnsafeBufferPointer<ImpactEvent>, history: borrowing SampleHistory, output: (AnalysisOutput) -> Void
    ) {
        for event in events { emit(event, history: history, output: output) }
        gaitContext?.finish(output: output)
    }

    private mutating func emit(_ event: ImpactEvent, history: borrowing SampleHistory, output: (AnalysisOutput) -> Void) {
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
    /// An event or a revision with its confidence mapped by `calibration`
    /// (unchanged without one): the label stays, its confidence says how
    /// often such a label was right on families the model never heard.
    func calibrated(by calibration: ConfidenceCalibration?) -> AnalysisOutput {
        guard let calibration else { return self }
        switch self {
        case var .event(event):
            event.measurements.confidence = calibration.calibrated(
                event.measurements.confidence, kind: event.measurements.kind, type: event.measurements.type)
            return .event(event)
        case var .provisional(event):
            event.measurements.confidence = calibration.calibrated(
                event.measurements.confidence, kind: event.measurements.kind, type: event.measurements.type)
            return .provisional(event)
        case var .revision(revision):
            revision.confidence = calibration.calibrated(revision.confidence, kind: revision.kind, type: revision.type)
            return .revision(revision)
        case .levels:
            return self
        }
    }

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
