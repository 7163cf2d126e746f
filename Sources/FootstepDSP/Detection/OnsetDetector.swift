import Glibc

/// Finds impacts (footsteps, knocks, slams) in a mono stream, in background
/// noise, and measures each one.
///
/// Every 10 ms it forms log band levels from two FFTs (see ARCHITECTURE.md:
/// 32 ms frames above 400 Hz, 128 ms frames below of the low band that the
/// caller hands in with each hop, `DetectorLowBand`'s decimated copy). The
/// detection function is a whitened spectral flux: for each band, how far the
/// level rose above both its level 30–60 ms earlier and its tracked noise
/// floor, divided by the band's expected fluctuation in stationary noise,
/// squared and summed over bands. An onset is a local peak of that function
/// above an adaptive threshold (0.8 × `threshold` × the running median of the
/// last 1.5 s of background plus 7 × its upper spread), whose bands also stand above their
/// noise floors as a whole (`minimumExcessPerBand`), at least
/// `minimumInterOnsetInterval` after the previous one and, while that one still
/// sounds, with at least `reonsetFraction` of its peak. The onset time is then
/// refined to about 2 ms on the low-passed waveform. An event lasts until its
/// excess energy over the floor has fallen back for 30 ms (or
/// `maximumEventDuration`).
///
/// Plain synchronous code: all buffers are allocated in `init`.
public struct OnsetDetector: ~Copyable {
    public let configuration: OnsetDetectorConfiguration
    /// Frames per call of `process` (10 ms).
    public let hopFrames: Int
    /// The mono input of the last 4 s, for cutting event segments.
    public private(set) var history: SampleHistory

    private var high: SpectralFluxAnalyzer
    private var low: SpectralFluxAnalyzer
    /// The low band (`DetectorLowBand`) of the last few hundred ms.
    private var lowHistory: SampleHistory
    private var frameIndex = 0
    private var detectionHistory: RunningMedian
    private var detection = (previous: 0.0, beforePrevious: 0.0, previousThreshold: 0.0)
    private var recentLevels: [BlockLevels]  // per-hop levels of the last `recentLevels.count` hops
    /// The Fast A-weighted background level (calibrated dB; −200 before the first hop).
    public private(set) var backgroundLAF = -200.0
    private var openEvent: OpenEvent?
    private var previousOnset: Int64?
    private var cadence: CadenceTracker
    private var refinementScratch: [Float]

    private static let warmUpFrames = 30
    /// The threshold is `thresholdScale` × (the running median plus
    /// `spreadFactor` times its upper spread) (tuned on synthesized scenarios;
    /// see ARCHITECTURE.md).
    private static let spreadFactor = 7.0
    private static let thresholdScale = 0.8
    /// A flux peak is an onset only if, on the frame after it, the bands stand
    /// above their noise floors by at least this much in total (Σ z² over the
    /// bands, z in units of each band's fluctuation, ≥ this × band count). In
    /// stationary noise the flux has occasional peaks from chance rises in a few
    /// bands (steep brown noise below 100 Hz above all) while the bands as a
    /// whole stay near their floors; an impact lifts several bands, or one a
    /// long way, for tens of milliseconds. This gate is what lets the flux
    /// threshold be low enough for steps at 0–5 dB SNR.
    static let minimumExcessPerBand = 3.3
    /// Where the rhythm of the last onsets says a step is due (`CadenceTracker`),
    /// the flux threshold and the excess gate are scaled by these factors.
    static let expectedStepThresholdFactor = 0.6
    static let expectedStepExcessFactor = 0.7
    private static let endHoldFrames = 3
    /// While an event is still sounding, or within `reonsetWindow` of its
    /// onset, a new onset needs a flux peak of at least this fraction of the
    /// event's own peak: the next step of a run (about as strong) counts, the
    /// scrape after a shuffle's first contact or a knock's rattle (a tenth of
    /// it) does not.
    static let reonsetFraction = 0.25
    /// Seconds after an onset in which `reonsetFraction` applies even when the
    /// event has gone quiet (in noise a scrape's start and its second
    /// component can be separate events).
    static let reonsetWindow = 0.4
    /// Sooner than this after an onset (a faster pace than any run's) a new
    /// onset needs `closeReonsetFraction` of the last event's peak.
    static let closeReonsetInterval = 0.25
    static let closeReonsetFraction = 0.6
    /// The largest share of the threshold's history impact frames may take.
    static let maximumImpactShare = 0.2
    /// Longest run of frames above the onset gate still taken as impacts (3 s).
    static let maximumImpactFrames = 300

    private struct OpenEvent {
        var onsetFrame: Int64
        var peak: Float
        var lafMax: Double
        var lcfMax: Double
        var aEnergy: Double
        var strength: Double
        /// The highest detection value since the onset.
        var peakFlux: Double
        var backgroundLAF: Double
        var quietFrames = 0
        var sincePrevious: Int64?

        mutating func include(_ levels: BlockLevels) {
            peak = max(peak, levels.peak)
            lafMax = max(lafMax, levels.lafMax)
            lcfMax = max(lcfMax, levels.lcfMax)
            aEnergy += levels.aWeightedEnergy
        }
    }

    /// Wide bands where thuds through a ceiling put their energy (floor modes
    /// 30–160 Hz): one rise over many bins stands out of noise better than
    /// small rises in several narrow bands.
    static let lowWideBands: [(Double, Double)] = [(40, 160)]

    /// No impact is quieter than this peak: two 16-bit steps (2 × 2⁻¹⁵ of full
    /// scale, −84.3 dBFS). Below it is the least significant bits' toggling, not
    /// a sound: in digital silence (a noise gate, a microphone's noise
    /// suppression, a quiet background high-passed away) that toggling rises
    /// far above a floor of nothing and would be taken for impacts.
    public static let minimumPeakDBFS = 20 * log10(Double(minimumPeak))
    private static let minimumPeak: Float = 2.0 / 32768

    public init(configuration: OnsetDetectorConfiguration) throws(DSPError) {
        try configuration.validate()
        let rate = configuration.sampleRate
        let split = 400.0
        // Above 400 Hz: 32 ms frames at the stream rate.
        let high = try SpectralFluxAnalyzer(
            fftSize: configuration.fftSize, sampleRate: rate, lowest: split, highest: configuration.highestFrequency,
            bandsPerOctave: 2, lag: 3)
        // Below 400 Hz: 128 ms frames of a copy decimated to about 2 kHz, for
        // the frequency resolution low thuds through a ceiling need.
        let layout = DetectorSpectra.Layout(configuration: configuration)
        let lowSize = layout.lowSize
        let low = try SpectralFluxAnalyzer(
            fftSize: lowSize, sampleRate: layout.lowSampleRate, lowest: configuration.lowestFrequency, highest: split,
            bandsPerOctave: 3, lag: 6, wideBands: Self.lowWideBands)
        self.high = high
        self.low = low
        spectrumLayout = layout
        lowHistory = SampleHistory(minimumCapacity: lowSize * 2)
        self.configuration = configuration
        hopFrames = configuration.hopFrames
        detectionHistory = RunningMedian(window: 150)
        recentLevels = [BlockLevels](repeating: BlockLevels(), count: 16)
        history = SampleHistory(minimumCapacity: Int(rate * 4))
        refinementScratch = [Float](repeating: 0, count: Int(rate * 0.25))
        cadence = CadenceTracker(sampleRate: rate)
    }

    /// Analyses one hop of exactly `hopFrames` mono samples together with its
    /// low band (`DetectorLowBand.samples` for the same hop) and the level
    /// meter's figures for the same samples. Returns the events that ended in
    /// this hop (at most two); cut their audio from `history`.
    public mutating func process(
        _ hop: UnsafeBufferPointer<Float>, lowBand: UnsafeBufferPointer<Float>, levels: BlockLevels
    ) -> EndedEvents {
        var ended = EndedEvents()
        precondition(hop.count == hopFrames, "OnsetDetector.process needs hops of exactly \(hopFrames) frames")
        history.append(hop)
        lowHistory.append(lowBand)
        recentLevels[frameIndex % recentLevels.count] = levels
        trackBackgroundLevel(levels.lafMax)
        let value = detectionFunction()
        let threshold = adaptiveThreshold()
        recordBackground(value)

        // A local maximum one frame ago, above its threshold, is an onset; a lower
        // one where the gait's rhythm expects the next step.
        if detection.previous > detection.previousThreshold * Self.expectedStepThresholdFactor,
            detection.previous >= detection.beforePrevious, detection.previous > value, frameIndex > Self.warmUpFrames
        {
            let expected = cadence.expectsStep(at: history.endFrame - Int64(high.fftSize / 2) - Int64(hopFrames))
            let thresholdFactor = expected ? Self.expectedStepThresholdFactor : 1
            let excessFactor = expected ? Self.expectedStepExcessFactor : 1
            // The flux peak must also stand out of the noise floor as a whole (see `minimumExcessPerBand`).
            if detection.previous > detection.previousThreshold * thresholdFactor,
                currentExcess >= Self.minimumExcessPerBand * excessFactor * Double(high.bandCount + low.bandCount),
                detection.previous >= reonsetMinimumFlux
            {
                onsetFound(flux: detection.previous, strength: detection.previous / detection.previousThreshold, ended: &ended)
            }
        }
        updateOpenEvent(levels: levels, flux: value, ended: &ended)
        detection = (value, detection.previous, threshold)
        frameIndex += 1
        return ended
    }

    /// Every onset this detector has yet to report is at or after this frame:
    /// the open event's onset, or the earliest frame a refined onset can take
    /// (the refinement looks back at most 250 ms before the current hop).
    public var earliestUnreportedOnsetFrame: Int64 {
        let bound = history.endFrame - Int64(hopFrames + max(refinementScratch.count, high.fftSize / 2 + hopFrames))
        return openEvent.map { min($0.onsetFrame, bound) } ?? bound
    }

    /// Closes an event still open at the end of the stream.
    public mutating func finish() -> EndedEvents {
        var ended = EndedEvents()
        if let event = openEvent {
            openEvent = nil
            end(event, at: history.endFrame, into: &ended)
        }
        return ended
    }

    // MARK: - Detection function

    private mutating func detectionFunction() -> Double {
        let fine = high.analyse(history)
        let coarse = low.analyse(lowHistory)
        currentExcess = fine.excess + coarse.excess
        return fine.flux + coarse.flux
    }

    /// The sizes and rates of `spectra`.
    public let spectrumLayout: DetectorSpectra.Layout

    /// The two spectra the last `process` formed (valid until the next call).
    public var spectra: DetectorSpectra { DetectorSpectra(high: high.spectrum, low: low.spectrum) }

    private var currentExcess = 0.0
    private var framesSinceQuiet = 0
    /// The peak detection value of the last event, kept after it closes.
    private var lastPeakFlux = 0.0

    /// The detection value a new onset must reach besides the threshold: a
    /// share of the last event's peak while that event sounds or for
    /// `reonsetWindow` after its onset (`reonsetFraction`; `closeReonsetFraction`
    /// within `closeReonsetInterval`, sooner than the next step of a run), else 0.
    private var reonsetMinimumFlux: Double {
        guard let previousOnset else { return 0 }
        let since = Double(history.endFrame - previousOnset) / configuration.sampleRate
        if since < Self.closeReonsetInterval { return Self.closeReonsetFraction * lastPeakFlux }
        if openEvent != nil || since < Self.reonsetWindow { return Self.reonsetFraction * lastPeakFlux }
        return 0
    }

    /// Adds this frame's detection value to the threshold's history. Frames
    /// inside impacts (the bands above the onset gate) may make up at most
    /// `maximumImpactShare` of it: an isolated impact still raises the
    /// threshold behind it (over a shuffle's scrape or a knock's rattle), a
    /// run of steps (3-4 a second, each ringing through a ceiling into the
    /// next) cannot fill the window with its own flux and rise over its later
    /// steps. After `maximumImpactFrames` without a quiet frame the background
    /// itself has changed and every frame counts again.
    private mutating func recordBackground(_ value: Double) {
        let impact = currentExcess >= Self.minimumExcessPerBand * Double(high.bandCount + low.bandCount)
        framesSinceQuiet = impact ? framesSinceQuiet + 1 : 0
        if !impact || framesSinceQuiet > Self.maximumImpactFrames {
            detectionHistory.push(value)
        } else if Double(detectionHistory.markedCount) < Self.maximumImpactShare * Double(detectionHistory.window) {
            detectionHistory.push(value, marked: true)
        }
    }

    private func adaptiveThreshold() -> Double {
        let median = detectionHistory.quantile(0.5)
        let upper = detectionHistory.quantile(0.75)
        let spread = max(upper - median, 1)
        return configuration.threshold * Self.thresholdScale
            * max(median + Self.spreadFactor * spread, 2 * Double(high.bandCount + low.bandCount))
    }

    private mutating func trackBackgroundLevel(_ laf: Double) {
        if backgroundLAF <= -199 {
            backgroundLAF = laf
        } else if laf < backgroundLAF {
            backgroundLAF += 0.05 * (laf - backgroundLAF)
        } else {
            backgroundLAF += 0.002 * min(laf - backgroundLAF, 10)
        }
    }

    // MARK: - Events

    private mutating func onsetFound(flux: Double, strength: Double, ended: inout EndedEvents) {
        let onset = refinedOnset()
        if var event = openEvent {
            if onset - event.onsetFrame < minimumInterOnsetFrames {
                event.strength = max(event.strength, strength)
                openEvent = event
                return
            }
            openEvent = nil
            end(event, at: onset, into: &ended)
        }
        if let previousOnset, onset - previousOnset < minimumInterOnsetFrames { return }
        var event = OpenEvent(
            onsetFrame: onset, peak: 0, lafMax: -200, lcfMax: -200, aEnergy: 0, strength: strength, peakFlux: flux,
            backgroundLAF: backgroundLAF, sincePrevious: previousOnset.map { onset - $0 })
        // Include the hops between the onset and its detection.
        let hopsBack = Int((history.endFrame - onset) / Int64(hopFrames))
        for back in 1...max(1, min(hopsBack, recentLevels.count - 1)) {
            let levels = recentLevels[(frameIndex - back + recentLevels.count * 4) % recentLevels.count]
            event.include(levels)
        }
        openEvent = event
        previousOnset = onset
        lastPeakFlux = flux
        cadence.record(onset)
    }

    private var minimumInterOnsetFrames: Int64 {
        Int64(configuration.minimumInterOnsetInterval * configuration.sampleRate)
    }

    private mutating func updateOpenEvent(levels: BlockLevels, flux: Double, ended: inout EndedEvents) {
        guard var event = openEvent else { return }
        event.include(levels)
        event.peakFlux = max(event.peakFlux, flux)
        lastPeakFlux = event.peakFlux
        let quiet = currentExcess < 2 * Double(high.bandCount + low.bandCount)
        event.quietFrames = quiet ? event.quietFrames + 1 : 0
        let duration = Double(history.endFrame - event.onsetFrame) / configuration.sampleRate
        if event.quietFrames >= Self.endHoldFrames || duration >= configuration.maximumEventDuration {
            let end = history.endFrame - Int64(event.quietFrames * hopFrames)
            openEvent = nil
            self.end(event, at: max(end, event.onsetFrame + Int64(hopFrames)), into: &ended)
        } else {
            openEvent = event
        }
    }

    /// Hands on `event`, ended at `endFrame`, unless its peak is below `minimumPeakDBFS`.
    private func end(_ event: OpenEvent, at endFrame: Int64, into ended: inout EndedEvents) {
        guard event.peak >= Self.minimumPeak else { return }
        ended.append(makeEvent(event, endFrame: endFrame))
    }

    private func makeEvent(_ event: OpenEvent, endFrame: Int64) -> ImpactEvent {
        let offset = configuration.calibrationOffsetDB
        let exposure = event.aEnergy * 2 / configuration.sampleRate
        return ImpactEvent(
            onsetFrame: event.onsetFrame, durationFrames: Int(endFrame - event.onsetFrame),
            peakDBFS: 20 * log10(max(Double(event.peak), 1e-10)), lafMax: event.lafMax, lcfMax: event.lcfMax,
            sel: 10 * log10(max(exposure, 1e-20)) + offset, backgroundLAF: event.backgroundLAF,
            strength: event.strength, detectorConfidence: min(0.999, 1 - 0.5 / max(event.strength, 1)),
            framesSincePreviousOnset: event.sincePrevious)
    }

    // MARK: - Onset refinement

    /// Locates the onset to about 2 ms: on a low-passed copy of the last
    /// 120 ms, the first 2 ms block whose energy rises a fifth of the way from
    /// the preceding background to the peak. Falls back to the frame estimate.
    private mutating func refinedOnset() -> Int64 {
        let frameEstimate = history.endFrame - Int64(high.fftSize / 2) - Int64(hopFrames)
        let block = max(8, Int(configuration.sampleRate * 0.002))
        let searchFrames = Int(configuration.sampleRate * 0.09)
        let baselineFrames = Int(configuration.sampleRate * 0.1)
        let total = min(refinementScratch.count, searchFrames + baselineFrames)
        let start = history.endFrame - Int64(hopFrames) - Int64(total)
        guard start >= history.startFrame else { return frameEstimate }
        let alpha = Float(1 - exp(-2 * Double.pi * 800 / configuration.sampleRate))
        var lowPassed1: Float = 0
        var lowPassed2: Float = 0
        var dc: Float = history[start]
        refinementScratch.withUnsafeMutableBufferPointer { scratch in
            for i in 0..<total {
                let x = history[start + Int64(i)]
                dc += 0.01 * (x - dc)
                lowPassed1 += alpha * ((x - dc) - lowPassed1)
                lowPassed2 += alpha * (lowPassed1 - lowPassed2)
                scratch[i] = lowPassed2 * lowPassed2
            }
        }
        let blocks = total / block
        let baselineBlocks = baselineFrames / block
        func blockEnergy(_ index: Int) -> Float {
            var sum: Float = 0
            for i in (index * block)..<((index + 1) * block) { sum += refinementScratch[i] }
            return sum
        }
        var baseline: Float = 0
        for index in 0..<baselineBlocks { baseline += blockEnergy(index) }
        baseline /= Float(max(1, baselineBlocks))
        // Two passes over at most ~45 blocks (3-block moving average):
        // find the peak, then the first crossing.
        var previous2: Float = 0
        var previous1: Float = 0
        var peak: Float = 0
        for index in baselineBlocks..<blocks {
            let e = blockEnergy(index)
            peak = max(peak, (e + previous1 + previous2) / 3)
            previous2 = previous1
            previous1 = e
        }
        guard peak > baseline * 3 else { return frameEstimate }
        let level = baseline + 0.2 * (peak - baseline)
        var firstCrossing: Int?
        previous1 = blockEnergy(baselineBlocks - 1)
        previous2 = blockEnergy(baselineBlocks - 2)
        for index in baselineBlocks..<blocks {
            let e = blockEnergy(index)
            let average = (e + previous1 + previous2) / 3
            previous2 = previous1
            previous1 = e
            if average >= level {
                firstCrossing = index - 1
                break
            }
        }
        guard let crossing = firstCrossing else { return frameEstimate }
        return start + Int64(crossing * block)
    }
}

/// The events that ended during one `OnsetDetector` call: none, one or two
/// (an onset closes the previous event). A fixed-size value; no allocation.
public struct EndedEvents: Sequence, IteratorProtocol {
    private var first: ImpactEvent?
    private var second: ImpactEvent?

    init() {}

    mutating func append(_ event: ImpactEvent) {
        if first == nil { first = event } else { second = event }
    }

    public mutating func next() -> ImpactEvent? {
        defer { (first, second) = (second, nil) }
        return first
    }
}
