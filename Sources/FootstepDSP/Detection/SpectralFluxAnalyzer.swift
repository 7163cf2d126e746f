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
    private var power: [Float]
    private var laggedLevels: [[Double]]
    private var floorLevels: [Double]
    private var frame = 0

    var bandCount: Int { bands.count }

    /// Frames before the floor is tracked slowly.
    static let warmUpFrames = 100

    init(fftSize: Int, sampleRate: Double, lowest: Double, highest: Double, bandsPerOctave: Double, lag: Int) throws(DSPError) {
        fft = try RealFFT(size: fftSize)
        self.fftSize = fftSize
        self.lag = lag
        window = Window.hann(fftSize)
        bands = SpectralBands(fftSize: fftSize, sampleRate: sampleRate, lowest: lowest, highest: highest, bandsPerOctave: bandsPerOctave)
        power = [Float](repeating: 0, count: fftSize / 2 + 1)
        laggedLevels = [[Double]](repeating: [Double](repeating: -200, count: bands.count), count: lag)
        floorLevels = [Double](repeating: -200, count: bands.count)
    }

    /// Analyses the last `fftSize` samples of `history`.
    mutating func analyse(_ history: borrowing SampleHistory) -> (flux: Double, excess: Double) {
        let start = history.endFrame - Int64(fftSize)
        let input = fft.input
        for i in 0..<fftSize {
            input[i] = history[start + Int64(i)] * window[i]
        }
        fft.forward()
        power.withUnsafeMutableBufferPointer { fft.powerSpectrum(into: $0) }

        let slot = frame % lag
        frame += 1
        var flux = 0.0
        var excess = 0.0
        for b in 0..<bands.count {
            var energy: Float = 1e-20
            for k in bands.lowerBins[b]..<bands.upperBins[b] { energy += power[k] }
            let level = 10 * log10(Double(energy))
            let floor = floorLevels[b]
            let reference = max(floor, laggedLevels[slot][b])
            if level > reference {
                let z = (level - reference) * bands.inverseDeviations[b]
                flux += z * z
            }
            if level > floor {
                let z = (level - floor) * bands.inverseDeviations[b]
                excess += z * z
            }
            laggedLevels[slot][b] = level
            // Noise floor: falls fast, rises slowly and by bounded steps, so
            // impacts barely move it while a louder room is followed in seconds.
            let difference = level - floor
            if frame <= Self.warmUpFrames {
                // Until the window holds real audio and for a second after,
                // follow the level closely to find the floor quickly.
                floorLevels[b] = frame * 2 < Self.warmUpFrames ? level : floor + 0.1 * difference
            } else if difference < 0 {
                floorLevels[b] += 0.04 * difference
            } else {
                floorLevels[b] += 0.004 * min(difference, 10)
            }
        }
        return (flux, excess)
    }
}
