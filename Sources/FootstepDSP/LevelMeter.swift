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

    private var aFilter: WeightingFilter
    private var cFilter: WeightingFilter
    private var aBuffer: [Float]
    private var cBuffer: [Float]

    private let fastAlpha: Double
    private let slowAlpha: Double
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
        aFilter = WeightingFilter(.a, sampleRate: fs)
        cFilter = WeightingFilter(.c, sampleRate: fs)
        aBuffer = Array(repeating: 0, count: maximumBlockSize)
        cBuffer = Array(repeating: 0, count: maximumBlockSize)
        fastAlpha = TimeWeighting.fast.smoothingFactor(sampleRate: fs)
        slowAlpha = TimeWeighting.slow.smoothingFactor(sampleRate: fs)
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

    /// Processes mono samples; calls `onInterval` (synchronously) each time an interval completes.
    public mutating func process(
        _ samples: UnsafeBufferPointer<Float>, onInterval: (IntervalLevels) -> Void
    ) -> BlockLevels {
        // Move the scratch buffers out of `self` (no allocation: the empty array is a
        // shared singleton) so they can be written while other properties are updated.
        var aScratch: [Float] = []
        var cScratch: [Float] = []
        swap(&aScratch, &aBuffer)
        swap(&cScratch, &cBuffer)
        defer {
            swap(&aScratch, &aBuffer)
            swap(&cScratch, &cBuffer)
        }

        var block = BlockAccumulator()
        var done = 0
        while done < samples.count {
            let n = min(samples.count - done, maximumBlockSize, intervalFrames - intervalCount)
            let chunk = UnsafeBufferPointer(rebasing: samples[done..<(done + n)])
            aScratch.withUnsafeMutableBufferPointer { a in
                cScratch.withUnsafeMutableBufferPointer { c in
                    let aOut = UnsafeMutableBufferPointer(rebasing: a[0..<n])
                    let cOut = UnsafeMutableBufferPointer(rebasing: c[0..<n])
                    aFilter.process(chunk, into: aOut)
                    cFilter.process(chunk, into: cOut)
                    accumulate(raw: chunk, a: UnsafeBufferPointer(aOut), c: UnsafeBufferPointer(cOut), into: &block)
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

    private mutating func accumulate(
        raw: UnsafeBufferPointer<Float>, a: UnsafeBufferPointer<Float>, c: UnsafeBufferPointer<Float>,
        into block: inout BlockAccumulator
    ) {
        var fA = fastA, sA = slowA, fC = fastC
        let alphaF = fastAlpha, alphaS = slowAlpha
        var sumA = 0.0, sumC = 0.0, sumZ = 0.0
        var maxFA = block.maxFastA, maxFC = block.maxFastC, maxSA = block.maxSlowA
        var intervalMax = intervalMaxFastA, intervalMin = intervalMinFastA
        var peak = block.peak
        var frame = position
        var countdown = strideCountdown
        for i in raw.indices {
            var xz = Double(raw[i])
            var xa = Double(a[i])
            var xc = Double(c[i])
            // NaN/inf samples count as silence (the filters reset themselves afterwards).
            if !xz.isFinite { xz = 0 }
            if !xa.isFinite { xa = 0 }
            if !xc.isFinite { xc = 0 }
            let ea = xa * xa, ec = xc * xc
            sumA += ea
            sumC += ec
            sumZ += xz * xz
            fA += alphaF * (ea - fA)
            sA += alphaS * (ea - sA)
            fC += alphaF * (ec - fC)
            if fA > maxFA { maxFA = fA }
            if fC > maxFC { maxFC = fC }
            if sA > maxSA { maxSA = sA }
            if fA > intervalMax { intervalMax = fA }
            let magnitude = Float(abs(xz))
            if magnitude > peak { peak = magnitude }
            if frame >= settleFrames {
                if fA < intervalMin { intervalMin = fA }
            }
            countdown -= 1
            if countdown == 0 {
                countdown = statisticsStride
                if frame >= settleFrames {
                    histogram.add(Decibels.level(meanSquare: fA))
                }
            }
            frame += 1
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
        intervalMaxFastA = intervalMax
        intervalMinFastA = intervalMin
        block.maxFastA = maxFA
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
