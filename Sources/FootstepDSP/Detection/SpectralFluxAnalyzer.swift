import Glibc

/// One resolution of the detector's spectral analysis: an FFT of the most
/// recent `fftSize` samples of a stream, log band levels, a tracked noise
/// floor per band, and two whitened figures per frame:
/// - flux: Σ z², z = how far a band rose above both its level `lag` frames
///   ago and its floor, in units of the band's fluctuation in stationary noise;
/// - excess: Σ z², z = how far a band is above its floor.
/// Squaring favours a large rise in a few bands (an impact) over small rises
/// in many (noise).
struct SpectralFluxAnalyzer: ~Copyable {
    let fftSize: Int
    private let fft: RealFFT
    private let window: [Float]
    private let bands: SpectralBands
    private let lag: Int
    /// The band levels of the last `lag` frames, frame-major (`slot * bandCount + band`).
    private var laggedLevels: [Double]
    private var floorLevels: [Double]
    /// Measured fluctuation per band (dB), for backgrounds whose bins are not
    /// independent (brown noise puts a band's energy in its lowest bins).
    private var measuredDeviations: [Double]
    private var frame = 0
    /// This frame's band energies, then levels (dB), between the passes of `analyse`.
    private let bandLevels: UnsafeMutableBufferPointer<Float>

    var bandCount: Int { bands.count }
    /// The complex spectrum of the last `analyse` (unnormalised, DC … Nyquist).
    var spectrum: UnsafeBufferPointer<(Float, Float)> { fft.output }

    /// Frames before the floor is tracked slowly.
    static let warmUpFrames = 100

    init(
        fftSize: Int, sampleRate: Double, lowest: Double, highest: Double, bandsPerOctave: Double, lag: Int,
        wideBands: [(Double, Double)] = []
    ) throws(DSPError) {
        fft = try RealFFT(size: fftSize)
        self.fftSize = fftSize
        self.lag = lag
        window = Window.hann(fftSize)
        bands = SpectralBands(fftSize: fftSize, sampleRate: sampleRate, lowest: lowest, highest: highest, bandsPerOctave: bandsPerOctave, wideBands: wideBands)
        laggedLevels = [Double](repeating: -200, count: bands.count * lag)
        floorLevels = [Double](repeating: -200, count: bands.count)
        measuredDeviations = bands.inverseDeviations.map { 1 / $0 }
        bandLevels = .allocate(capacity: bands.count)
        bandLevels.initialize(repeating: 0)
    }

    deinit { bandLevels.deallocate() }

    /// Analyses the last `fftSize` samples of `history`.
    mutating func analyse(_ history: borrowing SampleHistory) -> (flux: Double, excess: Double) {
        // Windowed as it is copied out of the ring, in one pass.
        window.withUnsafeBufferPointer { w in
            history.copy(from: history.endFrame - Int64(fftSize), into: fft.input, weightedBy: w)
        }
        fft.forward()

        let slot = frame % lag
        frame += 1
        let warmingUp = frame <= Self.warmUpFrames
        let following = frame * 2 < Self.warmUpFrames
        let bandCount = bands.count
        let spectrum = fft.output
        var flux = 0.0
        var excess = 0.0
        // Two passes over the bands: first every band's level (long, independent
        // latency chains: the sums and the logarithm), then the comparisons. Split,
        // the processor overlaps the levels of many bands; in one loop each band's
        // comparisons waited for its logarithm.
        let levels = bandLevels
        bands.lowerBins.withUnsafeBufferPointer { lowerBins in
        bands.upperBins.withUnsafeBufferPointer { upperBins in
            for b in 0..<bandCount {
                // Band energy straight from the FFT output (|X[k]|², only the bins in bands).
                levels[b] = spectrum.power(of: lowerBins[b]..<upperBins[b], plus: 1e-20)
            }
        }
        }
        Decibels.fastPowerLevels(levels)
        bands.inverseDeviations.withUnsafeBufferPointer { inverseDeviations in
        measuredDeviations.withUnsafeMutableBufferPointer { measured in
        floorLevels.withUnsafeMutableBufferPointer { floorLevels in
        laggedLevels.withUnsafeMutableBufferPointer { lagged in
            let laggedLevels = lagged.baseAddress! + slot * bandCount
            for b in 0..<bandCount {
                let level = Double(levels[b])
                let floor = floorLevels[b]
                let reference = max(floor, laggedLevels[b])
                // Only rises count. Written as selects, not branches: whether a band
                // rose is close to random in noise, and mispredictions dominated this loop.
                let rise = level > reference ? level - reference : 0
                let above = level > floor ? level - floor : 0
                // Whiten by the larger of the theoretical and the measured
                // fluctuation. The measurement follows the frame-to-frame change
                // (≈ 1.13 σ for independent frames) over about 2 s, each step
                // bounded so impacts barely move it.
                let sigma = measured[b]
                let change = abs(level - laggedLevels[b]) * (1 / 1.13)
                if frame > 20 {
                    measured[b] = sigma + 0.005 * (min(change, 3 * sigma) - sigma)
                }
                let inverse = min(inverseDeviations[b], 1 / sigma)
                let zRise = rise * inverse
                let zAbove = above * inverse
                flux += zRise * zRise
                excess += zAbove * zAbove
                laggedLevels[b] = level
                // Noise floor: falls fast, rises slowly and by bounded steps, so
                // impacts barely move it while a louder room is followed in seconds.
                let difference = level - floor
                if warmingUp {
                    // Until the window holds real audio and for a second after,
                    // follow the level closely to find the floor quickly.
                    floorLevels[b] = following ? level : floor + 0.1 * difference
                } else {
                    floorLevels[b] = floor + (difference < 0 ? 0.04 * difference : 0.004 * min(difference, 10))
                }
            }
        }
        }
        }
        }
        return (flux, excess)
    }
}
