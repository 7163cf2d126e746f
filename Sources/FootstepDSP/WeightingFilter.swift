import Foundation

/// A digital A, C or Z frequency-weighting filter for one sample rate,
/// normalised to exactly 0 dB at 1 kHz (see `WeightingFilter+Design.swift`
/// for the design and its measured accuracy).
///
/// - Note: Not thread-safe; one instance per signal path.
public struct WeightingFilter: Sendable {
    /// The weighting this filter applies.
    public let weighting: FrequencyWeighting
    /// The sample rate (Hz) the filter was designed for.
    public let sampleRate: Double
    /// The cascade of sections actually used (empty for Z).
    public let sections: [BiquadCoefficients]

    // Fixed stored sections (unused ones are identity and skipped) so that
    // processing never touches an array.
    private var section0: Biquad
    private var section1: Biquad
    private var section2: Biquad
    private let sectionCount: Int

    /// Designs the filter. `sampleRate` must be positive (8 kHz and up is meaningful).
    public init(_ weighting: FrequencyWeighting, sampleRate: Double) {
        precondition(sampleRate > 0 && sampleRate.isFinite, "sample rate must be positive")
        self.weighting = weighting
        self.sampleRate = sampleRate
        let designed = Self.design(weighting, sampleRate: sampleRate)
        sections = designed
        sectionCount = designed.count
        section0 = Biquad(designed.count > 0 ? designed[0] : .identity)
        section1 = Biquad(designed.count > 1 ? designed[1] : .identity)
        section2 = Biquad(designed.count > 2 ? designed[2] : .identity)
    }

    /// Filters `input` into `output` (`output.count >= input.count`; they may be the same buffer).
    public mutating func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(output.count >= input.count, "output buffer too small")
        let n = input.count
        guard n > 0, let src = input.baseAddress, let dst = output.baseAddress else { return }
        if UnsafePointer(dst) != src {
            dst.update(from: src, count: n)
        }
        let block = UnsafeMutableBufferPointer(start: dst, count: n)
        if sectionCount > 0 { section0.process(block) }
        if sectionCount > 1 { section1.process(block) }
        if sectionCount > 2 { section2.process(block) }
        if !(section0.isFinite && section1.isFinite && section2.isFinite) {
            // A NaN/inf sample would otherwise poison the state forever.
            reset()
        }
    }

    /// The magnitude (dB) of the digital filter actually used, at `f` Hz.
    public func magnitudeDB(atFrequency f: Double) -> Double {
        var gain = 1.0
        for s in sections {
            gain *= s.magnitude(atFrequency: f, sampleRate: sampleRate)
        }
        return 20 * log10(gain)
    }

    /// Returns the filter to rest.
    public mutating func reset() {
        section0.reset()
        section1.reset()
        section2.reset()
    }
}
