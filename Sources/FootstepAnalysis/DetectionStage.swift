import FootstepAudio
import FootstepClassifier
import FootstepDSP

/// The second half of the analysis: onset detector → event segment →
/// classifier → gait context → frame evidence, one 10 ms hop (with the level
/// meter's figures for it) at a time. The frame step network (`FrameEvidence`)
/// hears every hop when the model has one, as the detector's spectra of it,
/// after the detector's events of the hop.
///
/// Plain synchronous code; buffers are allocated in `init`.
struct DetectionStage<Classifier: EventClassifier>: ~Copyable {
    private(set) var classifier: Classifier
    private var detector: OnsetDetector
    private var gaitContext: GaitContextRefiner?
    private var frameEvidence: FrameEvidence?
    private var segment: [Float]
    private let preRollFrames: Int
    private let sampleRate: Double
    private let minimumConfidence: Double

    var hopFrames: Int { detector.hopFrames }

    init(sampleRate: Double, configuration: AnalysisConfiguration, classifier: consuming Classifier) throws(DSPError) {
        // Everything that can throw first: a noncopyable stored property cannot be left half set.
        let detector = try OnsetDetector(configuration: configuration.detectorConfiguration(sampleRate: sampleRate))
        var evidence: FrameEvidence? = nil
        if configuration.frameNetwork, let model = classifier.frameNetwork {
            evidence = FrameEvidence(
                model: model, layout: detector.spectrumLayout, hopFrames: detector.hopFrames, sampleRate: sampleRate,
                settledDelay: configuration.gaitSettlementDelay, calibrationOffset: configuration.calibrationOffsetDB)
        }
        self.detector = detector
        frameEvidence = evidence
        if configuration.gaitContext {
            gaitContext = GaitContextRefiner(
                boutTyper: classifier.boutTyper, walks: configuration.walks, memory: configuration.memory)
        }
        self.classifier = classifier
        self.sampleRate = sampleRate
        minimumConfidence = configuration.minimumConfidence
        preRollFrames = Int(configuration.segmentPreRoll * sampleRate)
        segment = [Float](repeating: 0, count: preRollFrames + Int(configuration.segmentLength * sampleRate))
    }

    /// Analyses one hop with its low band and levels (`LevelStage`); `output`
    /// receives the events that ended in it, with `minimumConfidence` applied.
    mutating func process(
        hop: UnsafeBufferPointer<Float>, lowBand: UnsafeBufferPointer<Float>, levels: BlockLevels,
        output: (AnalysisOutput) -> Void
    ) {
        let minimum = minimumConfidence
        func confident(_ item: AnalysisOutput) { output(item.requiringConfidence(minimum)) }
        guard var evidence = frameEvidence.take() else { return detect(hop, lowBand: lowBand, levels: levels, output: confident) }
        detect(hop, lowBand: lowBand, levels: levels) { evidence.accept($0, output: confident) }
        evidence.process(spectra: detector.spectra, levels: levels, background: detector.backgroundLAF, output: confident)
        frameEvidence = consume evidence
    }

    /// Closes an event still open at the end of the stream.
    mutating func finish(output: (AnalysisOutput) -> Void) {
        let minimum = minimumConfidence
        func confident(_ item: AnalysisOutput) { output(item.requiringConfidence(minimum)) }
        guard var evidence = frameEvidence.take() else { return finishDetection(output: confident) }
        finishDetection { evidence.accept($0, output: confident) }
        evidence.finish(output: confident)
        frameEvidence = consume evidence
    }

    private mutating func detect(
        _ hop: UnsafeBufferPointer<Float>, lowBand: UnsafeBufferPointer<Float>, levels: BlockLevels,
        output: (AnalysisOutput) -> Void
    ) {
        for event in detector.process(hop, lowBand: lowBand, levels: levels) { emit(event, output: output) }
        gaitContext?.release(knownUntil: Double(detector.earliestUnreportedOnsetFrame) / sampleRate, output: output)
    }

    private mutating func finishDetection(output: (AnalysisOutput) -> Void) {
        for event in detector.finish() { emit(event, output: output) }
        gaitContext?.finish(output: output)
    }

    private mutating func emit(_ event: ImpactEvent, output: (AnalysisOutput) -> Void) {
        detector.history.copy(from: event.onsetFrame - Int64(preRollFrames), into: &segment)
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
