import Glibc

/// The stream as a picture for the frame step network: every 10 ms hop, one
/// column of `bandCount` band levels in dB, each relative to that band's own
/// floor, so the microphone's gain and the background's colour are taken out.
///
/// - 16 bands equally spaced in log frequency over 20–400 Hz from the last
///   128 ms (a 2048-point FFT at 16 kHz), where a floor's modes ring;
/// - 40 bands over 400–7600 Hz from the last 32 ms (512 points), where a
///   heel's click and a shoe's scrape are.
///
/// A band's level is the mean power of the Hann-windowed FFT bins inside it
/// (the bin nearest its centre when none is). Its floor is its 20th
/// percentile over the last `floorSeconds` (30 s), recomputed at every whole
/// second (and every 10 hops through the first second) from a histogram of
/// the levels in 0.25 dB steps. A column's values are `level − floor`
/// clipped to −10…60 dB.
///
/// All storage is allocated in `init`; `process` does not allocate.
public struct FramePicture: ~Copyable {
    /// Changes whenever a column's values change: a frame network records the
    /// version it was trained on.
    public static let version = 1
    public static let lowBandCount = 16
    public static let highBandCount = 40
    public static let bandCount = lowBandCount + highBandCount
    public static let floorSeconds = 30.0
    static let floorQuantile = 0.2
    public static let clipRange: ClosedRange<Float> = -10...60
    /// The histogram's resolution and range (dB); levels outside are clamped.
    static let histogramStep: Float = 0.25
    static let histogramLowest: Float = -130
    static let histogramBins = 880

    public let hopFrames: Int
    private let low: BandAnalysis
    private let high: BandAnalysis
    /// The last `low.size` samples, oldest first (the newest hop at the end).
    private let samples: UnsafeMutableBufferPointer<Float>
    /// This hop's levels (dB) and the column handed out.
    private let levels: UnsafeMutableBufferPointer<Float>
    private let column: UnsafeMutableBufferPointer<Float>
    private let floors: UnsafeMutableBufferPointer<Float>
    /// Per band, the count of levels in each histogram bin over the window (`band * bins + bin`).
    private let histogram: UnsafeMutableBufferPointer<Int32>
    /// The histogram bin of each band's level at each hop of the window (`slot * bandCount + band`).
    private let history: UnsafeMutableBufferPointer<UInt16>
    private let windowHops: Int
    private let hopsPerSecond: Int
    /// Hops processed so far.
    public private(set) var hops = 0

    /// - Parameter sampleRate: the analysis rate (16 kHz; others scale the FFT sizes to the next power of two).
    public init(sampleRate: Double) throws(DSPError) {
        guard sampleRate.isFinite, sampleRate >= 8000 else { throw .invalidSampleRate(sampleRate) }
        let low = try BandAnalysis(
            size: Self.powerOfTwo(atLeast: 0.128 * sampleRate), sampleRate: sampleRate,
            lowest: 20, highest: 400, count: Self.lowBandCount)
        let high = try BandAnalysis(
            size: Self.powerOfTwo(atLeast: 0.032 * sampleRate), sampleRate: sampleRate,
            lowest: 400, highest: min(7600, 0.475 * sampleRate), count: Self.highBandCount)
        self.low = low
        self.high = high
        hopFrames = Int((sampleRate / 100).rounded())
        hopsPerSecond = 100
        windowHops = Int(Self.floorSeconds) * hopsPerSecond
        samples = .allocate(capacity: low.size)
        samples.initialize(repeating: 0)
        levels = .allocate(capacity: Self.bandCount)
        levels.initialize(repeating: 0)
        column = .allocate(capacity: Self.bandCount)
        column.initialize(repeating: 0)
        floors = .allocate(capacity: Self.bandCount)
        floors.initialize(repeating: 0)
        histogram = .allocate(capacity: Self.bandCount * Self.histogramBins)
        histogram.initialize(repeating: 0)
        history = .allocate(capacity: Self.bandCount * windowHops)
        history.initialize(repeating: 0)
    }

    deinit {
        samples.deallocate()
        levels.deallocate()
        column.deallocate()
        floors.deallocate()
        histogram.deallocate()
        history.deallocate()
    }

    static func powerOfTwo(atLeast value: Double) -> Int {
        var size = 1
        while Double(size) < value.rounded() { size <<= 1 }
        return size
    }

    /// Takes one hop of exactly `hopFrames` samples and returns its column
    /// (`bandCount` values, valid until the next call).
    public mutating func process(_ hop: UnsafeBufferPointer<Float>) -> UnsafeBufferPointer<Float> {
        precondition(hop.count == hopFrames, "FramePicture.process needs hops of exactly \(hopFrames) frames")
        let size = samples.count
        let base = samples.baseAddress!
        base.update(from: base + hopFrames, count: size - hopFrames)
        (base + size - hopFrames).update(from: hop.baseAddress!, count: hopFrames)
        low.levels(of: UnsafeBufferPointer(samples), into: UnsafeMutableBufferPointer(rebasing: levels[0..<Self.lowBandCount]))
        high.levels(
            of: UnsafeBufferPointer(rebasing: samples[(size - high.size)...]),
            into: UnsafeMutableBufferPointer(rebasing: levels[Self.lowBandCount...]))
        remember()
        hops += 1
        if hops % hopsPerSecond == 0 || (hops < hopsPerSecond && (hops == 1 || hops % 10 == 0)) { updateFloors() }
        for band in 0..<Self.bandCount {
            column[band] = min(Self.clipRange.upperBound, max(Self.clipRange.lowerBound, levels[band] - floors[band]))
        }
        return UnsafeBufferPointer(column)
    }

    /// Adds this hop's levels to the histogram, dropping the levels of `floorSeconds` ago.
    private mutating func remember() {
        let bandCount = Self.bandCount
        let bins = Self.histogramBins
        let slot = (hops % windowHops) * bandCount
        let full = hops >= windowHops
        for band in 0..<bandCount {
            if full { histogram[band * bins + Int(history[slot + band])] -= 1 }
            let scaled = (levels[band] - Self.histogramLowest) / Self.histogramStep
            let bin = UInt16(min(Float(bins - 1), max(0, scaled.rounded(.down))))
            history[slot + band] = bin
            histogram[band * bins + Int(bin)] += 1
        }
    }

    /// Each band's floor: the centre of the histogram bin holding its 20th percentile.
    private func updateFloors() {
        let bins = Self.histogramBins
        let count = min(hops, windowHops)
        let rank = Int32(Double(count - 1) * Self.floorQuantile) + 1
        for band in 0..<Self.bandCount {
            var cumulative: Int32 = 0
            var bin = 0
            while bin < bins - 1 {
                cumulative += histogram[band * bins + bin]
                if cumulative >= rank { break }
                bin += 1
            }
            floors[band] = Self.histogramLowest + (Float(bin) + 0.5) * Self.histogramStep
        }
    }
}

/// One resolution of `FramePicture`: a Hann-windowed FFT and `count` bands
/// equally spaced in log frequency, each the mean power of its bins (in dB).
private final class BandAnalysis {
    let size: Int
    private let fft: RealFFT
    private let window: [Float]
    private let power: UnsafeMutableBufferPointer<Float>
    private let firstBins: [Int]
    private let endBins: [Int]

    init(size: Int, sampleRate: Double, lowest: Double, highest: Double, count: Int) throws(DSPError) {
        self.size = size
        fft = try RealFFT(size: size)
        window = Window.hann(size)
        power = .allocate(capacity: fft.binCount)
        power.initialize(repeating: 0)
        let binWidth = sampleRate / Double(size)
        var first: [Int] = []
        var end: [Int] = []
        for band in 0..<count {
            let lower = lowest * pow(highest / lowest, Double(band) / Double(count))
            let upper = lowest * pow(highest / lowest, Double(band + 1) / Double(count))
            let inside = (0..<fft.binCount).filter { Double($0) * binWidth >= lower && Double($0) * binWidth < upper }
            let nearest = Int(((lower * upper).squareRoot() / binWidth).rounded())
            first.append(inside.first ?? nearest)
            end.append((inside.last ?? nearest) + 1)
        }
        firstBins = first
        endBins = end
    }

    deinit { power.deallocate() }

    /// The band levels (dB) of `samples` (exactly `size` of them).
    func levels(of samples: UnsafeBufferPointer<Float>, into levels: UnsafeMutableBufferPointer<Float>) {
        let input = fft.input
        window.withUnsafeBufferPointer { w in
            for i in 0..<size { input[i] = samples[i] * w[i] }
        }
        fft.forward()
        fft.powerSpectrum(into: power)
        for band in 0..<firstBins.count {
            var sum: Float = 0
            for bin in firstBins[band]..<endBins[band] { sum += power[bin] }
            let mean = Double(sum) / Double(endBins[band] - firstBins[band])
            levels[band] = Float(Decibels.fastPowerLevel(mean + 1e-12))
        }
    }
}
