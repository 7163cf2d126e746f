import Glibc

/// Log-spaced frequency bands over FFT bins, with each band's expected
/// fluctuation in stationary noise (used to whiten the detection function).
struct SpectralBands {
    /// First bin of each band.
    let lowerBins: [Int]
    /// One past the last bin of each band.
    let upperBins: [Int]
    /// 1 / (standard deviation in dB of a band's level in stationary noise):
    /// about 5.6 dB / sqrt(bins) for a chi-squared power estimate.
    let inverseDeviations: [Double]

    var count: Int { lowerBins.count }

    /// - Parameter wideBands: extra bands (Hz ranges) overlapping the log-spaced
    ///   ones: more bins, so a smaller fluctuation, for a sound spread over them.
    init(fftSize: Int, sampleRate: Double, lowest: Double, highest: Double, bandsPerOctave: Double = 2, wideBands: [(Double, Double)] = []) {
        let binWidth = sampleRate / Double(fftSize)
        let top = min(highest, 0.45 * sampleRate)
        var lower: [Int] = []
        var upper: [Int] = []
        var edge = lowest
        var bin = max(1, Int((lowest / binWidth).rounded()))
        while edge < top {
            let next = min(top, edge * exp2(1 / bandsPerOctave))
            let end = max(bin + 1, Int((next / binWidth).rounded()))
            if end > bin, Double(end) * binWidth <= top + binWidth {
                lower.append(bin)
                upper.append(end)
                bin = end
            }
            edge = next
        }
        for (low, high) in wideBands {
            let first = max(1, Int((low / binWidth).rounded()))
            let end = min(fftSize / 2, Int((min(high, top) / binWidth).rounded()))
            if end > first + 1 {
                lower.append(first)
                upper.append(end)
            }
        }
        lowerBins = lower
        upperBins = upper
        inverseDeviations = zip(lower, upper).map { lo, hi in
            // Hann windowing correlates neighbouring bins: about 1.5 bins per degree of freedom.
            let effectiveBins = max(1, Double(hi - lo) / 1.5)
            return effectiveBins.squareRoot() / 5.6
        }
    }
}
