import Foundation
import FootstepDSP

/// The impact as a time–frequency picture, what `PictureNetwork` looks at:
/// log-mel energies in `bands` bands from 25 Hz to 4 kHz × `frames` frames
/// of 20 ms (32 ms Hann windows), from the start of the event's segment
/// (50 ms before the onset) to 462 ms after the onset, in dB relative to the
/// picture's own loudest cell and floored at −40 dB, so no absolute level
/// (microphone gain) is in it. Frames that would reach past the segment
/// are left at the floor.
///
/// `values` is band-major: `values[band * frames + frame]`, the lowest band
/// first — the layout of a one-channel image of `bands` rows.
///
/// Buffers are allocated for a sample rate on first use (and again only when
/// the rate changes); `compute` does not allocate in steady state.
///
/// - Note: Not thread-safe; one instance per pipeline.
public struct EventPicture {
    /// Version of the picture's definition (recorded in model files). Bump it
    /// whenever the bands, frames or scaling change.
    public static let version = 1
    public static let bands = 16
    public static let frames = 25
    public static let count = bands * frames
    /// The floor, in dB below the picture's loudest cell.
    public static let floorDB: Float = -40
    static let lowHz = 25.0
    static let highHz = 4000.0
    static let hopSeconds = 0.02
    static let windowSeconds = 0.032

    /// The picture of the last `compute`, `count` values in dB (−40…0).
    public private(set) var values: [Float]

    private var sampleRate: Double = 0
    private var fft: RealFFT?
    private var hop = 0
    private var window: [Float] = []
    private var power: [Float] = []
    /// One frame's band energies, then levels (dB).
    private var bandLevels = [Float](repeating: 0, count: bands)
    /// Triangular mel filters: band b weighs bins `firstBin[b]...` by
    /// `weights[offset[b]..<offset[b + 1]]`.
    private var firstBin: [Int] = []
    private var offset: [Int] = []
    private var weights: [Float] = []

    public init() {
        values = [Float](repeating: Self.floorDB, count: Self.count)
    }

    private mutating func prepare(sampleRate rate: Double) {
        guard rate != sampleRate else { return }
        sampleRate = rate
        let length = max(16, Int((Self.windowSeconds * rate).rounded()))
        var size = 1
        while size < length { size <<= 1 }
        fft = try? RealFFT(size: size)
        hop = max(1, Int((Self.hopSeconds * rate).rounded()))
        // A periodic Hann window over the whole FFT frame.
        window = (0..<size).map { k in 0.5 - 0.5 * cos(2 * Float.pi * Float(k) / Float(size)) }
        power = [Float](repeating: 0, count: size / 2 + 1)
        let filters = Self.melFilters(size: size, rate: rate)
        firstBin = filters.firstBin
        offset = filters.weights.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        weights = filters.weights.flatMap { $0 }
    }

    /// Triangles evenly spaced on the mel scale (2595·log10(1 + f/700)), each
    /// rising from its lower neighbour's centre to its own and falling to the
    /// next one's; a band narrower than a bin keeps its nearest bin.
    static func melFilters(size: Int, rate: Double) -> (firstBin: [Int], weights: [[Float]]) {
        func mel(_ hz: Double) -> Double { 2595 * log10(1 + hz / 700) }
        func hz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let high = min(highHz, rate / 2)
        let points = (0..<(bands + 2)).map { i in
            hz(mel(lowHz) + (mel(high) - mel(lowHz)) * Double(i) / Double(bands + 1))
        }
        let binHz = rate / Double(size)
        var firstBin: [Int] = []
        var weights: [[Float]] = []
        for b in 0..<bands {
            let (lo, centre, hi) = (points[b], points[b + 1], points[b + 2])
            var row: [Float] = []
            var first = -1
            for k in 0...(size / 2) {
                let f = Double(k) * binHz
                let w = min((f - lo) / (centre - lo), (hi - f) / (hi - centre))
                if w > 0 {
                    if first < 0 { first = k }
                    row.append(Float(w))
                } else if first >= 0 {
                    break
                }
            }
            if first < 0 {
                first = min(size / 2, Int((centre / binHz).rounded()))
                row = [1]
            }
            firstBin.append(first)
            weights.append(row)
        }
        return (firstBin, weights)
    }

    /// Computes the picture of `segment` (mono at `rate`, starting 50 ms before the onset) into `values`.
    public mutating func compute(segment: UnsafeBufferPointer<Float>, sampleRate rate: Double) {
        prepare(sampleRate: rate)
        guard let fft else { return }
        let size = fft.size
        let input = fft.input
        var loudest = -Float.infinity
        values.withUnsafeMutableBufferPointer { out in
            for frame in 0..<Self.frames {
                let start = frame * hop
                guard start + size <= segment.count else {
                    for b in 0..<Self.bands { out[b * Self.frames + frame] = -.infinity }
                    continue
                }
                for k in 0..<size { input[k] = segment[start + k] * window[k] }
                fft.forward()
                power.withUnsafeMutableBufferPointer { fft.powerSpectrum(into: $0) }
                // Every band's energy, then every logarithm at once (`Decibels.fastPowerLevels`).
                var nonFinite: UInt32 = 0
                bandLevels.withUnsafeMutableBufferPointer { levels in
                    for b in 0..<Self.bands {
                        var energy: Float = 1e-12
                        let shift = firstBin[b] - offset[b]
                        for j in offset[b]..<offset[b + 1] { energy += weights[j] * power[shift + j] }
                        if !energy.isFinite {
                            nonFinite |= 1 << b
                            energy = 1
                        }
                        levels[b] = energy
                    }
                    Decibels.fastPowerLevels(levels)
                    for b in 0..<Self.bands {
                        // A non-finite sample (which the pipeline does not pass on) would leave the cell at the floor.
                        let level = nonFinite & (1 << b) == 0 ? levels[b] : -.infinity
                        out[b * Self.frames + frame] = level
                        loudest = max(loudest, level)
                    }
                }
            }
            guard loudest.isFinite else {
                for i in 0..<out.count { out[i] = Self.floorDB }
                return
            }
            for i in 0..<out.count { out[i] = max(Self.floorDB, out[i] - loudest) }
        }
    }
}
