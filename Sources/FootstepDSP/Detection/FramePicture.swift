import Glibc

/// The stream as a picture for the frame step network: every 10 ms hop, one
/// column of `bandCount` band levels in dB, each relative to that band's own
/// floor, so the microphone's gain and the background's colour are taken out.
///
/// The picture is formed from the onset detector's own transforms of the hop
/// (`DetectorSpectra`), so it costs no FFT of its own:
/// - 16 bands equally spaced in log frequency over 20–400 Hz from the last
///   128 ms of the detector's low band (256 points at 2 kHz), where a floor's
///   modes ring;
/// - 40 bands over 400–7600 Hz from the last 32 ms (512 points at 16 kHz),
///   where a heel's click and a shoe's scrape are.
///
/// A band's level is the mean power of the FFT bins inside it (the bin
/// nearest its centre when none is); the low band's powers are scaled by the
/// decimation squared, so a sound has the level a transform of the same
/// length at the stream's rate would give it. Its floor is its 20th
/// percentile over the last `floorSeconds` (30 s), recomputed at every whole
/// second (and every 10 hops through the first second) from a histogram of
/// the levels in 0.25 dB steps. A column's values are `level − floor`
/// clipped to −10…60 dB.
///
/// All storage is allocated in `init`; `process` does not allocate.
public struct FramePicture: ~Copyable {
    /// Changes whenever what a column measures changes: a frame network
    /// records the version it was trained on. Version 2 takes the detector's
    /// transforms (version 1 made its own, at the stream's rate for both
    /// resolutions). Rounding is not a change: the Float logarithm
    /// (`Decibels.fastPowerLevels`) moved the values by about 1e-5 dB.
    public static let version = 2
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

    private let low: BandPowers
    private let high: BandPowers
    /// This hop's levels (dB) and the column handed out.
    private let levels: UnsafeMutableBufferPointer<Float>
    private let column: UnsafeMutableBufferPointer<Float>
    private let floors: UnsafeMutableBufferPointer<Float>
    /// Per band, the count of levels in each histogram bin over the window
    /// (`band * bins + bin`; at most `windowHops`, 3,000).
    private let histogram: UnsafeMutableBufferPointer<UInt16>
    /// The histogram bin of each band's level at each hop of the window (`slot * bandCount + band`).
    private let history: UnsafeMutableBufferPointer<UInt16>
    /// Each band's floor as a histogram bin: `updateFloors` moves from there.
    private let floorBins: UnsafeMutableBufferPointer<Int32>
    private let windowHops: Int
    private let hopsPerSecond: Int
    /// Hops processed so far.
    public private(set) var hops = 0

    /// - Parameter layout: the detector's transforms (`OnsetDetector.spectrumLayout`).
    public init(layout: DetectorSpectra.Layout) {
        let decimation = layout.highSampleRate / layout.lowSampleRate
        low = BandPowers(
            size: layout.lowSize, sampleRate: layout.lowSampleRate, lowest: 20, highest: 400, count: Self.lowBandCount,
            scale: decimation * decimation)
        high = BandPowers(
            size: layout.highSize, sampleRate: layout.highSampleRate,
            lowest: 400, highest: min(7600, 0.475 * layout.highSampleRate), count: Self.highBandCount, scale: 1)
        hopsPerSecond = 100
        windowHops = Int(Self.floorSeconds) * hopsPerSecond
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
        floorBins = .allocate(capacity: Self.bandCount)
        floorBins.initialize(repeating: 0)
    }

    deinit {
        levels.deallocate()
        column.deallocate()
        floors.deallocate()
        histogram.deallocate()
        history.deallocate()
        floorBins.deallocate()
    }

    /// Takes one hop's spectra (the detector's, after its `process` of the
    /// hop) and returns the hop's column (`bandCount` values, valid until the
    /// next call).
    public mutating func process(_ spectra: DetectorSpectra) -> UnsafeBufferPointer<Float> {
        low.powers(of: spectra.low, into: UnsafeMutableBufferPointer(rebasing: levels[0..<Self.lowBandCount]))
        high.powers(of: spectra.high, into: UnsafeMutableBufferPointer(rebasing: levels[Self.lowBandCount...]))
        Decibels.fastPowerLevels(levels)
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
            // Clamped first, the conversion's truncation is the floor.
            let scaled = (levels[band] - Self.histogramLowest) / Self.histogramStep
            let bin = UInt16(min(Float(bins - 1), max(0, scaled)))
            history[slot + band] = bin
            histogram[band * bins + Int(bin)] += 1
        }
    }

    /// Each band's floor: the centre of the histogram bin holding its 20th
    /// percentile (the lowest bin through which the histogram holds `rank`
    /// levels, the top bin if none). The levels move little from one second
    /// to the next, so the search starts at the last floor: the count below
    /// it in one sum without a branch (vectorised), then a walk up while the
    /// bins through it hold fewer than `rank`, down while the bins below it
    /// hold `rank`: the bin a scan from the bottom would find.
    private func updateFloors() {
        let bins = Self.histogramBins
        let count = min(hops, windowHops)
        let rank = Int32(Double(count - 1) * Self.floorQuantile) + 1
        for band in 0..<Self.bandCount {
            let counts = histogram.baseAddress! + band * bins
            var bin = Int(floorBins[band])
            var below: Int32 = 0
            for b in 0..<bin { below &+= Int32(counts[b]) }
            while bin < bins - 1, below + Int32(counts[bin]) < rank {
                below += Int32(counts[bin])
                bin += 1
            }
            while bin > 0, below >= rank {
                bin -= 1
                below -= Int32(counts[bin])
            }
            floorBins[band] = Int32(bin)
            floors[band] = Self.histogramLowest + (Float(bin) + 0.5) * Self.histogramStep
        }
    }
}

/// One resolution of `FramePicture`: `count` bands equally spaced in log
/// frequency over a transform of `size` points, each the mean power of its
/// bins times `scale`.
private struct BandPowers {
    private let firstBins: [Int]
    private let endBins: [Int]
    /// `scale` over each band's bin count.
    private let factors: [Float]

    init(size: Int, sampleRate: Double, lowest: Double, highest: Double, count: Int, scale: Double) {
        let binCount = size / 2 + 1
        let binWidth = sampleRate / Double(size)
        var first: [Int] = []
        var end: [Int] = []
        for band in 0..<count {
            let lower = lowest * pow(highest / lowest, Double(band) / Double(count))
            let upper = lowest * pow(highest / lowest, Double(band + 1) / Double(count))
            let inside = (0..<binCount).filter { Double($0) * binWidth >= lower && Double($0) * binWidth < upper }
            let nearest = Int(((lower * upper).squareRoot() / binWidth).rounded())
            first.append(inside.first ?? nearest)
            end.append((inside.last ?? nearest) + 1)
        }
        firstBins = first
        endBins = end
        factors = zip(first, end).map { Float(scale / Double($1 - $0)) }
    }

    /// The band powers of `spectrum` (`size / 2 + 1` complex bins): each
    /// band's mean bin power times `scale`, plus 1e-12 (−120 dB) so that its
    /// logarithm is finite.
    func powers(of spectrum: UnsafeBufferPointer<(Float, Float)>, into powers: UnsafeMutableBufferPointer<Float>) {
        firstBins.withUnsafeBufferPointer { firstBins in
        endBins.withUnsafeBufferPointer { endBins in
        factors.withUnsafeBufferPointer { factors in
            for band in 0..<firstBins.count {
                powers[band] = spectrum.power(of: firstBins[band]..<endBins[band]) * factors[band] + 1e-12
            }
        }
        }
        }
    }
}
