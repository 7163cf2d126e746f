import FootstepAudio
import Foundation

/// Independent measurements for the synthesizer tests (nothing here uses the synthesizer's own DSP).
enum SynthesisMeasure {
    static func readAll(_ source: SyntheticSource, blockSizes: [Int] = [4096]) throws -> [Float] {
        let channels = source.format.channels
        var all: [Float] = []
        all.reserveCapacity((source.frameCount ?? 0) * channels)
        var buffer = [Float](repeating: 0, count: (blockSizes.max() ?? 1) * channels)
        var call = 0
        while true {
            let frames = blockSizes[call % blockSizes.count]
            call += 1
            let n = try buffer.withUnsafeMutableBufferPointer {
                try source.read(into: UnsafeMutableBufferPointer(rebasing: $0[0..<(frames * channels)]))
            }
            if n == 0 { return all }
            all.append(contentsOf: buffer[0..<(n * channels)])
        }
    }

    static func meanPower(_ x: ArraySlice<Float>) -> Double {
        x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))
    }

    /// dBFS with 0 dBFS = full-scale sine (power 0.5).
    static func dBFS(_ power: Double) -> Double { 10 * log10(power / 0.5) }

    /// The ground-truth level definition, computed directly: the loudest window of
    /// min(100 ms, duration) inside [onset, onset + duration].
    static func eventPower(_ x: [Float], onsetFrame: Int, duration: Double, sampleRate: Int) -> Double {
        let span = Int((duration * Double(sampleRate)).rounded())
        let window = Int((min(0.1, duration) * Double(sampleRate)).rounded())
        let end = min(onsetFrame + span, x.count)
        // Prefix sums of squares over the event's span, then every window position.
        var prefix = [Double](repeating: 0, count: end - onsetFrame + 1)
        for i in onsetFrame..<end { prefix[i - onsetFrame + 1] = prefix[i - onsetFrame] + Double(x[i]) * Double(x[i]) }
        var best = 0.0
        var start = 0
        while start + window < prefix.count {
            best = max(best, prefix[start + window] - prefix[start])
            start += 1
        }
        return best / Double(window)
    }

    /// Fraction of the energy above `frequency`, from a radix-2 FFT of the zero-padded signal.
    static func energyFraction(above frequency: Double, _ x: [Float], sampleRate: Int) -> Double {
        var n = 1
        while n < x.count { n *= 2 }
        var re = x.map(Double.init) + [Double](repeating: 0, count: n - x.count)
        var im = [Double](repeating: 0, count: n)
        fft(&re, &im)
        var above = 0.0
        var total = 0.0
        for k in 1..<(n / 2) {
            let e = re[k] * re[k] + im[k] * im[k]
            total += e
            if Double(k) * Double(sampleRate) / Double(n) > frequency { above += e }
        }
        return above / total
    }

    private static func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = re.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                re.swapAt(i, j)
                im.swapAt(i, j)
            }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let wr = cos(angle * Double(k))
                    let wi = sin(angle * Double(k))
                    let a = start + k
                    let b = a + length / 2
                    let tr = re[b] * wr - im[b] * wi
                    let ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] += tr
                    im[a] += ti
                }
            }
            length *= 2
        }
    }
}
