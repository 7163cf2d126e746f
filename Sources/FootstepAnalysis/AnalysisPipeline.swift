import FootstepAudio
import FootstepClassifier
import FootstepDSP

/// What the pipeline reports as it goes.
public enum AnalysisOutput: Sendable {
    /// A detected, classified impact.
    case event(AnalyzedEvent)
    /// A completed level interval (per minute by default).
    case levels(IntervalLevels)
}

/// The analysis of one stream: optional EQ prefilter → mono mixdown → levels
/// (dB(A), dB(C)) → onset detector → classifier. The same code runs on a
/// live device, a file and the synthetic scenario.
///
/// Plain synchronous code, a pure function of the samples: all buffers are
/// allocated in `init`; `process` does not allocate.
public struct AnalysisPipeline<Classifier: EventClassifier>: ~Copyable {
    public let format: AudioFormat
    public let configuration: AnalysisConfiguration
    public private(set) var meter: LevelMeter
    public private(set) var classifier: Classifier
    /// Frames processed so far.
    public private(set) var framesProcessed: Int64 = 0

    private var detector: OnsetDetector
    private var equalizer: ParametricEQ?
    private let hopFrames: Int
    private var hop: [Float]
    private var hopFill = 0
    private var equalized: [Float]
    private var segment: [Float]
    private let preRollFrames: Int

    /// - Parameter maximumBlockFrames: the most frames one `process` call will get.
    public init(
        format: AudioFormat, configuration: AnalysisConfiguration, classifier: Classifier,
        maximumBlockFrames: Int = 8192
    ) throws(DSPError) {
        let rate = Double(format.sampleRate)
        let detector = try OnsetDetector(configuration: configuration.detectorConfiguration(sampleRate: rate))
        let equalizer = configuration.equalizer.isEmpty ? nil : try ParametricEQ(bands: configuration.equalizer, sampleRate: rate)
        self.format = format
        self.configuration = configuration
        self.classifier = classifier
        hopFrames = detector.hopFrames
        self.detector = detector
        var meterConfiguration = LevelMeterConfiguration(sampleRate: rate)
        meterConfiguration.intervalSeconds = configuration.levelIntervalSeconds
        meterConfiguration.calibrationOffsetDB = configuration.calibrationOffsetDB
        meter = LevelMeter(configuration: meterConfiguration, maximumBlockSize: hopFrames)
        self.equalizer = equalizer
        hop = [Float](repeating: 0, count: hopFrames)
        equalized = [Float](repeating: 0, count: equalizer == nil ? 0 : maximumBlockFrames * format.channels)
        preRollFrames = Int(configuration.segmentPreRoll * rate)
        segment = [Float](repeating: 0, count: preRollFrames + Int(configuration.segmentLength * rate))
    }

    /// Analyses `frames` interleaved frames; `output` receives events and level
    /// intervals as they complete. `samples` is not modified.
    public mutating func process(
        _ samples: UnsafeBufferPointer<Float>, frames: Int, output: (AnalysisOutput) -> Void
    ) {
        let channels = format.channels
        if equalizer != nil {
            precondition(frames * channels <= equalized.count, "block larger than maximumBlockFrames")
            equalized.withUnsafeMutableBufferPointer { buffer in
                let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(frames * channels)])
                _ = block.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: samples[0..<(frames * channels)]))
                equalizer!.process(interleaved: block, channels: channels)
            }
            equalized.withUnsafeBufferPointer { consume(mixingDown: $0, frames: frames, output: output) }
        } else {
            consume(mixingDown: samples, frames: frames, output: output)
        }
        framesProcessed += Int64(frames)
    }

    /// Flushes the last partial interval and any open event at the end of a stream.
    public mutating func finish(output: (AnalysisOutput) -> Void) {
        for event in detector.finish() { emit(event, output: output) }
        meter.flush { output(.levels($0)) }
    }

    private mutating func consume(mixingDown samples: UnsafeBufferPointer<Float>, frames: Int, output: (AnalysisOutput) -> Void) {
        let channels = format.channels
        let scale = 1 / Float(channels)
        var frame = 0
        while frame < frames {
            let count = min(hopFrames - hopFill, frames - frame)
            hop.withUnsafeMutableBufferPointer { hop in
                if channels == 1 {
                    // Mono: one contiguous copy.
                    (hop.baseAddress! + hopFill).update(from: samples.baseAddress! + frame, count: count)
                } else {
                    for i in 0..<count {
                        var sum: Float = 0
                        let base = (frame + i) * channels
                        for c in 0..<channels { sum += samples[base + c] }
                        hop[hopFill + i] = sum * scale
                    }
                }
            }
            hopFill += count
            frame += count
            if hopFill == hopFrames {
                analyseHop(output: output)
                hopFill = 0
            }
        }
    }

    private mutating func analyseHop(output: (AnalysisOutput) -> Void) {
        let ended = hop.withUnsafeBufferPointer { hopSamples in
            let levels = meter.process(hopSamples) { output(.levels($0)) }
            return detector.process(hopSamples, levels: levels)
        }
        for event in ended { emit(event, output: output) }
    }

    private mutating func emit(_ event: ImpactEvent, output: (AnalysisOutput) -> Void) {
        let start = event.onsetFrame - Int64(preRollFrames)
        detector.history.copy(from: start, into: &segment)
        let classification = segment.withUnsafeBufferPointer { buffer in
            return classifier.classify(
                event, segment: buffer, preRollFrames: preRollFrames,
                sampleRate: Double(format.sampleRate))
        }
        output(.event(AnalyzedEvent(event, classification: classification, sampleRate: Double(format.sampleRate))))
    }
}
