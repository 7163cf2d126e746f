/// A sound level meter after IEC 61672-1: A/C/Z frequency weighting, Fast/Slow
/// exponential time weighting, and per-interval statistics (LAeq, LCeq, LZeq,
/// LAFmax, LAFmin, LA10, LA90).
///
/// Levels are `10·log10(2·meanSquare) + calibrationOffsetDB`, so a full-scale sine reads
/// 0 dB before calibration (AES17 dBFS). Nothing is allocated after `init`.
///
/// Intervals are counted in frames from the first sample the meter sees. During the
/// first 0.5 s the Fast detector is still rising from zero; those samples count towards
/// LAeq/LCeq/LZeq and LAFmax but not towards LAFmin, LA10 and LA90.
///
/// - Note: Not thread-safe; call from the one analysis thread.
public struct LevelMeter: Sendable {
    /// The configuration the meter was built with.
    public let configuration: LevelMeterConfiguration
    /// Largest number of samples filtered in one pass (longer inputs are processed in pieces).
    public let maximumBlockSize: Int

    private var weighting: ACWeightingCascade
    // Per-chunk scratch (allocated once): squared A and C samples, and a sanitised
    // copy of the input for the rare chunk that holds NaN/inf samples.
    private var aBuffer: [Double]
    private var cBuffer: [Double]
    private var cleanBuffer: [Float]

    private let fastAlpha: Double
    private let slowAlpha: Double
    /// 1 − α: the detectors are updated as `y·(1−α) + α·x²` (two operations on the
    /// recursive path instead of three).
    private let fastDecay: Double
    private let slowDecay: Double
    private var fastA = 0.0
    private var slowA = 0.0
    private var fastC = 0.0

    private let intervalFrames: Int
    private let minimumFlushFrames: Int
    private let settleFrames: Int64
    /// LAF is sampled into the percentile histogram every `statisticsStride` frames (≤ 10 ms).
    private let statisticsStride: Int
    private var strideCountdown: Int

    private var position: Int64 = 0
    private var totalEnergyA = 0.0

    private var intervalStart: Int64 = 0
    private var intervalCount = 0
    private var energyA = 0.0
    private var energyC = 0.0
    private var energyZ = 0.0
    private var intervalMaxFastA = 0.0
    private var intervalMinFastA = Double.infinity
    private var histogram = LevelHistogram(lowerDB: Decibels.floor, upperDB: 40, binWidthDB: 0.1)

    /// Creates a meter for mono input at `configuration.sampleRate`; buffers for
    /// `maximumBlockSize` samples are allocated here, once.
    ///
    /// - Precondition: `configuration.validate()` does not throw; `maximumBlockSize > 0`.
    public init(configuration: LevelMeterConfiguration, maximumBlockSize: Int) {
        precondition((try? configuration.validate()) != nil, "invalid LevelMeterConfiguration: \(configuration)")
        precondition(maximumBlockSize > 0, "maximumBlockSize must be positive")
        let fs = configuration.sampleRate
        self.configuration = configuration
        self.maximumBlockSize = maximumBlockSize
        weighting = ACWeightingCascade(sampleRate: fs)
        aBuffer = Array(repeating: 0, count: maximumBlockSize)
        cBuffer = Array(repeating: 0, count: maximumBlockSize)
        cleanBuffer = Array(repeating: 0, count: maximumBlockSize)
        fastAlpha = TimeWeighting.fast.smoothingFactor(sampleRate: fs)
        slowAlpha = TimeWeighting.slow.smoothingFactor(sampleRate: fs)
        fastDecay = 1 - fastAlpha
        slowDecay = 1 - slowAlpha
        intervalFrames = max(1, Int((configuration.intervalSeconds * fs).rounded()))
        minimumFlushFrames = Int(fs.rounded())
        settleFrames = Int64((0.5 * fs).rounded())
        statisticsStride = max(1, Int((0.01 * fs).rounded(.down)))
        strideCountdown = statisticsStride
    }

    private var offset: Double { configuration.calibrationOffsetDB }

    /// Current Fast A-weighted level, dB.
    public var currentLAF: Double { Decibels.level(meanSquare: fastA) + offset }
    /// Current Fast C-weighted level, dB.
    public var currentLCF: Double { Decibels.level(meanSquare: fastC) + offset }
    /// Current Slow A-weighted level, dB.
    public var currentLAS: Double { Decibels.level(meanSquare: slowA) + offset }
    /// A-weighted equivalent level since the meter started, dB.
    public var runningLAeq: Double {
        position > 0 ? Decibels.level(meanSquare: totalEnergyA / Double(position)) + offset : Decibels.floor + offset
    }
    /// Frames processed since the meter started.
    public var framesProcessed: Int64 { position }
    /// Sum of the squared A-weighted samples since the meter started (full-scale units,
    /// no calibration): the difference of two readings over their frames is the LAeq between them.
    public var cumulativeAWeightedEnergy: Double { totalEnergyA }

    /// Processes mono samples; calls `onInterval` (synchronously) each time an interval completes.
    public mutating func process(
        _ samples: UnsafeBufferPointer<Float>, onInterval: (IntervalLevels) -> Void
    ) -> BlockLevels {
        // Move the scratch buffers out of `self` (no allocation: the empty array is a
        // shared singleton) so they can be written while other properties are updated.
        var aScratch: [Double] = []
        var cScratch: [Double] = []
        var cleanScratch: [Float] = []
        swap(&aScratch, &aBuffer)
        swap(&cScratch, &cBuffer)
        swap(&cleanScratch, &cleanBuffer)
        defer {
            swap(&aScratch, &aBuffer)
            swap(&cScratch, &cBuffer)
            swap(&cleanScratch, &cleanBuffer)
        }

        var block = BlockAccumulator()
        var done = 0
        while done < samples.count {
            let n = min(samples.count - done, maximumBlockSize, intervalFrames - intervalCount)
            let chunk = UnsafeBufferPointer(rebasing: samples[done..<(done + n)])
            aScratch.withUnsafeMutableBufferPointer { a in
                cScratch.withUnsafeMutableBufferPointer { c in
                    let aSquared = a.baseAddress!, cSquared = c.baseAddress!
                    if let bad = Self.firstNonFinite(chunk) {
                        // Rare: NaN/inf samples count as silence. The filters see only the
                        // samples before the first one (an IIR state would stay poisoned),
                        // the rest of the chunk is silent on A and C, and the filters
                        // restart from rest after the chunk.
                        cleanScratch.withUnsafeMutableBufferPointer { clean in
                            for i in 0..<n { clean[i] = chunk[i].isFinite ? chunk[i] : 0 }
                            weighting.processSquared(
                                UnsafeBufferPointer(rebasing: chunk[0..<bad]), aSquared: aSquared, cSquared: cSquared)
                            weighting.reset()
                            (aSquared + bad).update(repeating: 0, count: n - bad)
                            (cSquared + bad).update(repeating: 0, count: n - bad)
                            accumulate(
                                raw: UnsafeBufferPointer(rebasing: clean[0..<n]), aSquared: aSquared, cSquared: cSquared,
                                into: &block)
                        }
                    } else {
                        weighting.processSquared(chunk, aSquared: aSquared, cSquared: cSquared)
                        accumulate(raw: chunk, aSquared: aSquared, cSquared: cSquared, into: &block)
                    }
                }
            }
            done += n
            if intervalCount == intervalFrames {
                onInterval(finishInterval())
            }
        }
        if samples.isEmpty {
            block.maxFastA = fastA
            block.maxFastC = fastC
            block.maxSlowA = slowA
        }
        return BlockLevels(
            lafMax: Decibels.level(meanSquare: block.maxFastA) + offset,
            lcfMax: Decibels.level(meanSquare: block.maxFastC) + offset,
            lasMax: Decibels.level(meanSquare: block.maxSlowA) + offset,
            aWeightedEnergy: block.energyA,
            peak: block.peak
        )
    }

    /// Emits the partial last interval if it holds at least 1 s of audio, then starts a
    /// new interval at the current frame (a shorter remainder is dropped from the statistics).
    public mutating func flush(onInterval: (IntervalLevels) -> Void) {
        if intervalCount >= minimumFlushFrames {
            onInterval(finishInterval())
        } else {
            startInterval()
        }
    }

    private struct BlockAccumulator {
        var maxFastA = 0.0
        var maxFastC = 0.0
        var maxSlowA = 0.0
        var energyA = 0.0
        var peak: Float = 0
    }

    /// The index of the first NaN or infinite sample, if any. The scan is a branch-free
    /// OR over the exponent bits (all ones only for NaN/inf) that the compiler vectorises;
    /// the per-sample loops then need no checks.
    private static func firstNonFinite(_ x: UnsafeBufferPointer<Float>) -> Int? {
        var flags: UInt32 = 0
        for v in x {
            // The exponent field plus one carries into bit 31 only when it is all ones.
            flags |= ((v.bitPattern & 0x7F80_0000) &+ 0x0080_0000) & 0x8000_0000
        }
        guard flags != 0 else { return nil }
        return x.firstIndex { !$0.isFinite }
    }

    /// Time weighting and statistics over one chunk of (finite) samples. The per-sample
    /// loop only updates running sums, the three detectors and their extremes; the
    /// percentile histogram is fed once per `statisticsStride` frames between loops.
    private mutating func accumulate(
        raw: UnsafeBufferPointer<Float>, aSquared: UnsafePointer<Double>, cSquared: UnsafePointer<Double>,
        into block: inout BlockAccumulator
    ) {
        var fA = fastA, sA = slowA, fC = fastC
        let alphaF = fastAlpha, alphaS = slowAlpha, decayF = fastDecay, decayS = slowDecay
        var sumA = 0.0, sumC = 0.0, sumZ = 0.0
        var maxFA = 0.0, maxFC = block.maxFastC, maxSA = block.maxSlowA
        var intervalMin = intervalMinFastA
        var peak = block.peak
        var frame = position
        var countdown = strideCountdown
        var i = 0
        while i < raw.count {
            // Up to the next histogram instant, and not across the end of the settling time.
            var end = min(raw.count, i + countdown)
            let settled = frame >= settleFrames
            if !settled { end = min(end, i + Int(settleFrames - frame)) }
            var minFA = Double.infinity
            for j in i..<end {
                let ea = aSquared[j], ec = cSquared[j]
                let xz = raw[j]
                sumA += ea
                sumC += ec
                sumZ += Double(xz) * Double(xz)
                fA = fA * decayF + alphaF * ea
                sA = sA * decayS + alphaS * ea
                fC = fC * decayF + alphaF * ec
                maxFA = fA > maxFA ? fA : maxFA
                minFA = fA < minFA ? fA : minFA
                maxFC = fC > maxFC ? fC : maxFC
                maxSA = sA > maxSA ? sA : maxSA
                let magnitude = abs(xz)
                peak = magnitude > peak ? magnitude : peak
            }
            if settled, minFA < intervalMin { intervalMin = minFA }
            countdown -= end - i
            frame += Int64(end - i)
            i = end
            if countdown == 0 {
                countdown = statisticsStride
                // The level of the last frame, once it is past the settling time.
                if frame > settleFrames {
                    histogram.add(Decibels.level(meanSquare: fA))
                }
            }
        }
        // Flush the detectors' subnormals after long silences.
        fastA = fA < 1e-30 ? 0 : fA
        slowA = sA < 1e-30 ? 0 : sA
        fastC = fC < 1e-30 ? 0 : fC
        strideCountdown = countdown
        position = frame
        intervalCount += raw.count
        energyA += sumA
        energyC += sumC
        energyZ += sumZ
        totalEnergyA += sumA
        if maxFA > intervalMaxFastA { intervalMaxFastA = maxFA }
        intervalMinFastA = intervalMin
        if maxFA > block.maxFastA { block.maxFastA = maxFA }
        block.maxFastC = maxFC
        block.maxSlowA = maxSA
        block.energyA += sumA
        block.peak = peak
    }

    private mutating func finishInterval() -> IntervalLevels {
        let frames = max(intervalCount, 1)
        let lafMax = Decibels.level(meanSquare: intervalMaxFastA) + offset
        let lafMin = intervalMinFastA.isFinite ? Decibels.level(meanSquare: intervalMinFastA) + offset : lafMax
        let levels = IntervalLevels(
            startFrame: intervalStart,
            frames: intervalCount,
            laeq: Decibels.level(meanSquare: energyA / Double(frames)) + offset,
            lceq: Decibels.level(meanSquare: energyC / Double(frames)) + offset,
            lzeq: Decibels.level(meanSquare: energyZ / Double(frames)) + offset,
            lafMax: lafMax,
            lafMin: lafMin,
            la10: histogram.levelExceeded(fraction: 0.1).map { $0 + offset } ?? lafMin,
            la90: histogram.levelExceeded(fraction: 0.9).map { $0 + offset } ?? lafMin
        )
        startInterval()
        return levels
    }

    private mutating func startInterval() {
        intervalStart = position
        intervalCount = 0
        energyA = 0
        energyC = 0
        energyZ = 0
        intervalMaxFastA = 0
        intervalMinFastA = .infinity
        histogram.reset()
    }
}
