import FootstepAudio
import FootstepDSP

/// The first stage of the analysis: optional EQ prefilter → mono mixdown →
/// 10 ms hops → level meter (dB(A), dB(C), intervals) and the onset
/// detector's low band (`DetectorLowBand`, a per-sample filter, on the reader
/// thread in `ParallelAnalysisRunner`). Hands each completed hop, its low
/// band and its levels to the `DetectionStage` (`OnsetStage` first).
///
/// Plain synchronous code; buffers are allocated in `init`.
struct LevelStage: ~Copyable {
    let format: AudioFormat
    let hopFrames: Int
    private(set) var meter: LevelMeter
    /// Frames consumed so far (including a partial hop).
    private(set) var framesProcessed: Int64 = 0
    /// The samples of the hop `nextHop` completed last.
    var hop: UnsafeBufferPointer<Float> { UnsafeBufferPointer(hopStorage) }
    /// That hop's low band for the onset detector.
    var lowBand: UnsafeBufferPointer<Float> { detectorLowBand.samples }
    /// The most samples `lowBand` holds.
    var maximumLowBandSamples: Int { detectorLowBand.maximumSamplesPerHop }

    private var equalizer: ParametricEQ?
    private var detectorLowBand: DetectorLowBand
    // Raw buffers (allocated once): callers hold pointers into them while the
    // stage goes on, which arrays inside a struct would not allow.
    private let equalized: UnsafeMutableBufferPointer<Float>
    private let hopStorage: UnsafeMutableBufferPointer<Float>
    private var hopFill = 0

    init(
        format: AudioFormat, configuration: AnalysisConfiguration, hopFrames: Int, maximumBlockFrames: Int
    ) throws(DSPError) {
        let rate = Double(format.sampleRate)
        let equalizer = configuration.equalizer.isEmpty ? nil : try ParametricEQ(bands: configuration.equalizer, sampleRate: rate)
        self.format = format
        self.hopFrames = hopFrames
        var meterConfiguration = LevelMeterConfiguration(sampleRate: rate)
        meterConfiguration.intervalSeconds = configuration.levelIntervalSeconds
        meterConfiguration.calibrationOffsetDB = configuration.calibrationOffsetDB
        meter = LevelMeter(configuration: meterConfiguration, maximumBlockSize: hopFrames)
        let detector = configuration.detectorConfiguration(sampleRate: rate)
        precondition(detector.hopFrames == hopFrames, "the level stage's hops are the detector's")
        detectorLowBand = DetectorLowBand(configuration: detector)
        self.equalizer = equalizer
        equalized = .allocate(capacity: equalizer == nil ? 0 : maximumBlockFrames * format.channels)
        equalized.initialize(repeating: 0)
        hopStorage = .allocate(capacity: hopFrames)
        hopStorage.initialize(repeating: 0)
    }

    deinit {
        equalized.deallocate()
        hopStorage.deallocate()
    }

    /// The block to analyse: `samples` itself, or its equalised copy when an EQ
    /// is configured (valid until the next call).
    mutating func prefilter(_ samples: UnsafeBufferPointer<Float>, frames: Int) -> UnsafeBufferPointer<Float> {
        guard equalizer != nil else { return samples }
        let count = frames * format.channels
        precondition(count <= equalized.count, "block larger than maximumBlockFrames")
        let block = UnsafeMutableBufferPointer(rebasing: equalized[0..<count])
        _ = block.update(fromContentsOf: UnsafeBufferPointer(rebasing: samples[0..<count]))
        equalizer!.process(interleaved: block, channels: format.channels)
        return UnsafeBufferPointer(block)
    }

    /// Mixes interleaved frames from `frame` on into the current hop. Returns the
    /// levels of the hop when it is complete (its samples are then in `hop`,
    /// its low band in `lowBand`), nil when the block ran out first.
    /// `interval` receives level intervals as they complete.
    mutating func nextHop(
        from samples: UnsafeBufferPointer<Float>, frames: Int, at frame: inout Int, interval: (IntervalLevels) -> Void
    ) -> BlockLevels? {
        let channels = format.channels
        let scale = 1 / Float(channels)
        let hop = hopStorage
        while frame < frames {
            let count = min(hopFrames - hopFill, frames - frame)
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
            hopFill += count
            frame += count
            framesProcessed += Int64(count)
            if hopFill == hopFrames {
                hopFill = 0
                detectorLowBand.process(UnsafeBufferPointer(hop))
                return meter.process(UnsafeBufferPointer(hop), onInterval: interval)
            }
        }
        return nil
    }

    /// Emits the last partial interval at the end of a stream.
    mutating func finish(interval: (IntervalLevels) -> Void) {
        meter.flush(onInterval: interval)
    }
}
