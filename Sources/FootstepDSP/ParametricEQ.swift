import Foundation

/// The prefilter: up to `maximumBands` RBJ cookbook biquads per channel, applied in
/// place to interleaved audio. Coefficients and state are allocated in `init`.
///
/// - Note: Not thread-safe; one instance per stream.
public struct ParametricEQ: Sendable {
    /// Most bands per channel.
    public static let maximumBands = 14
    /// Most per-channel band lists.
    public static let maximumChannels = 2
    /// Most interleaved channels `process` accepts (channels beyond the band lists reuse the last list).
    public static let maximumProcessedChannels = 8

    /// The validated bands, per configured channel.
    public let bands: [[EQBand]]
    /// The sample rate the coefficients were computed for.
    public let sampleRate: Double
    // filters[c] is the cascade for interleaved channel c (c < maximumProcessedChannels).
    private var filters: [[Biquad]]

    /// Validates and designs the EQ. `bands` holds one list per channel (at most 2); a single
    /// list applies to every channel; an empty outer or inner list means no filtering.
    public init(bands: [[EQBand]], sampleRate: Double) throws(DSPError) {
        guard sampleRate > 0, sampleRate.isFinite else { throw .invalidSampleRate(sampleRate) }
        guard bands.count <= Self.maximumChannels else {
            throw .tooManyEQChannels(count: bands.count, maximum: Self.maximumChannels)
        }
        let frequencies = EQBand.frequencyRange(sampleRate: sampleRate)
        for (channel, list) in bands.enumerated() {
            guard list.count <= Self.maximumBands else {
                throw .tooManyEQBands(channel: channel, count: list.count, maximum: Self.maximumBands)
            }
            for (index, band) in list.enumerated() {
                if !frequencies.contains(band.frequency) {
                    throw .invalidEQBand(
                        channel: channel, band: index, parameter: .frequency, value: band.frequency, allowed: frequencies)
                }
                if !EQBand.gainRange.contains(band.gainDB) {
                    throw .invalidEQBand(
                        channel: channel, band: index, parameter: .gainDB, value: band.gainDB, allowed: EQBand.gainRange)
                }
                if !EQBand.qRange.contains(band.q) {
                    throw .invalidEQBand(channel: channel, band: index, parameter: .q, value: band.q, allowed: EQBand.qRange)
                }
            }
        }
        self.bands = bands
        self.sampleRate = sampleRate
        let designed = bands.map { list in list.map { Biquad(Self.coefficients(for: $0, sampleRate: sampleRate)) } }
        filters = (0..<Self.maximumProcessedChannels).map { c in
            designed.isEmpty ? [] : designed[min(c, designed.count - 1)]
        }
    }

    /// True when no band is configured (processing is a no-op).
    public var isBypassed: Bool { bands.allSatisfy(\.isEmpty) }

    /// Filters interleaved audio in place; `interleaved.count` must be a multiple of `channels`.
    public mutating func process(interleaved: UnsafeMutableBufferPointer<Float>, channels: Int) {
        precondition((1...Self.maximumProcessedChannels).contains(channels), "unsupported channel count \(channels)")
        precondition(interleaved.count % channels == 0, "buffer is not a whole number of frames")
        for c in 0..<channels {
            for b in filters[c].indices {
                filters[c][b].process(interleaved, offset: c, stride: channels)
            }
        }
    }

    /// Returns every filter to rest.
    public mutating func reset() {
        for c in filters.indices {
            for b in filters[c].indices { filters[c][b].reset() }
        }
    }

    /// The combined magnitude response (dB) of the cascade for `channel` at `f` Hz.
    public func magnitudeDB(atFrequency f: Double, channel: Int = 0) -> Double {
        guard channel < filters.count else { return 0 }
        return filters[channel].reduce(0) { $0 + 20 * log10($1.coefficients.magnitude(atFrequency: f, sampleRate: sampleRate)) }
    }

    /// RBJ Audio EQ Cookbook coefficients for one band.
    public static func coefficients(for band: EQBand, sampleRate: Double) -> BiquadCoefficients {
        let a = pow(10, band.gainDB / 40)
        let w0 = 2 * Double.pi * band.frequency / sampleRate
        let cosW = cos(w0)
        let alpha = sin(w0) / (2 * band.q)
        switch band.kind {
        case .peaking:
            return BiquadCoefficients(
                b0: 1 + alpha * a, b1: -2 * cosW, b2: 1 - alpha * a,
                a0: 1 + alpha / a, a1: -2 * cosW, a2: 1 - alpha / a)
        case .lowShelf:
            let k = 2 * a.squareRoot() * alpha
            return BiquadCoefficients(
                b0: a * ((a + 1) - (a - 1) * cosW + k),
                b1: 2 * a * ((a - 1) - (a + 1) * cosW),
                b2: a * ((a + 1) - (a - 1) * cosW - k),
                a0: (a + 1) + (a - 1) * cosW + k,
                a1: -2 * ((a - 1) + (a + 1) * cosW),
                a2: (a + 1) + (a - 1) * cosW - k)
        case .highShelf:
            let k = 2 * a.squareRoot() * alpha
            return BiquadCoefficients(
                b0: a * ((a + 1) + (a - 1) * cosW + k),
                b1: -2 * a * ((a - 1) + (a + 1) * cosW),
                b2: a * ((a + 1) + (a - 1) * cosW - k),
                a0: (a + 1) - (a - 1) * cosW + k,
                a1: 2 * ((a - 1) - (a + 1) * cosW),
                a2: (a + 1) - (a - 1) * cosW - k)
        }
    }
}
