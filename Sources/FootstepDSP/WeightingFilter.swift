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

/// The A and C weightings of one sample rate as a single fused cascade, for the level
/// meter's hot loop: both designs start with the same bilinear high-pass (the double
/// pole at f1), so that section is computed once and feeds the rest of both chains:
///
///     x ─ HP(f1) ─┬─ HP(f2, f3) ─ LP_A ─ A
///                 └─ LP_C ───────────── C
///
/// Each section is in direct form I with `Double` state, all sections run in one loop
/// over a sample. An IIR section is limited by the latency of its own recursion, not by
/// arithmetic; running the sections of one sample together lets the CPU overlap the
/// four independent recursions. Each output is written as "feed-forward part, minus
/// a2·y2, minus a1·y1" in plain scalars, so that only one multiply and one subtraction
/// sit on each recursive path (the two high-passes have the numerator g·(1, −2, 1),
/// computed with one multiply). Scalars, not SIMD pairs: with the sections in SIMD
/// lanes the compiler's lane shuffles cost more time than the packed arithmetic saved.
struct ACWeightingCascade: Sendable {
    private let highPass: BiquadCoefficients
    private let aHighPass: BiquadCoefficients
    private let cLowPass: BiquadCoefficients
    private let aLowPass: BiquadCoefficients
    // Past inputs and outputs (1 = one sample ago, 2 = two samples ago): x (input),
    // h (shared high-pass), p (A's second high-pass), c (C's output), a (A's output).
    private var x1 = 0.0, x2 = 0.0
    private var h1 = 0.0, h2 = 0.0
    private var p1 = 0.0, p2 = 0.0
    private var c1 = 0.0, c2 = 0.0
    private var a1 = 0.0, a2 = 0.0

    init(sampleRate: Double) {
        let a = WeightingFilter.design(.a, sampleRate: sampleRate)
        let c = WeightingFilter.design(.c, sampleRate: sampleRate)
        precondition(a.count == 3 && c.count == 2 && a[0] == c[0], "A and C designs no longer share their first section")
        for section in [a[0], a[1]] {
            precondition(section.b1 == -2 * section.b0 && section.b2 == section.b0, "a high-pass is not a bilinear s² section")
        }
        highPass = a[0]
        aHighPass = a[1]
        aLowPass = a[2]
        cLowPass = c[1]
    }

    /// Filters `input` and writes the squared A- and C-weighted samples.
    /// `input` must be finite (see `LevelMeter`); the outputs hold at least `input.count`.
    mutating func processSquared(
        _ input: UnsafeBufferPointer<Float>, aSquared: UnsafeMutablePointer<Double>, cSquared: UnsafeMutablePointer<Double>
    ) {
        let hg = highPass.b0, ha1 = highPass.a1, ha2 = highPass.a2
        let pg = aHighPass.b0, pa1 = aHighPass.a1, pa2 = aHighPass.a2
        let ab0 = aLowPass.b0, ab1 = aLowPass.b1, ab2 = aLowPass.b2, aa1 = aLowPass.a1, aa2 = aLowPass.a2
        let cb0 = cLowPass.b0, cb1 = cLowPass.b1, cb2 = cLowPass.b2, ca1 = cLowPass.a1, ca2 = cLowPass.a2
        var x1 = x1, x2 = x2, h1 = h1, h2 = h2, p1 = p1, p2 = p2, c1 = c1, c2 = c2, a1 = a1, a2 = a2
        guard let samples = input.baseAddress else { return }
        for i in 0..<input.count {
            let x = Double(samples[i])
            let h = (hg * ((x + x2) - 2 * x1) - ha2 * h2) - ha1 * h1
            let p = (pg * ((h + h2) - 2 * h1) - pa2 * p2) - pa1 * p1
            let c = ((cb0 * h + cb1 * h1 + cb2 * h2) - ca2 * c2) - ca1 * c1
            let a = ((ab0 * p + ab1 * p1 + ab2 * p2) - aa2 * a2) - aa1 * a1
            aSquared[i] = a * a
            cSquared[i] = c * c
            x2 = x1; x1 = x
            h2 = h1; h1 = h
            p2 = p1; p1 = p
            c2 = c1; c1 = c
            a2 = a1; a1 = a
        }
        // Flush values that long silences would leave in the (slow) subnormal range.
        @inline(__always) func flushed(_ v: Double) -> Double { abs(v) < 1e-30 ? 0 : v }
        self.x1 = flushed(x1); self.x2 = flushed(x2)
        self.h1 = flushed(h1); self.h2 = flushed(h2)
        self.p1 = flushed(p1); self.p2 = flushed(p2)
        self.c1 = flushed(c1); self.c2 = flushed(c2)
        self.a1 = flushed(a1); self.a2 = flushed(a2)
    }

    /// Returns the cascade to rest.
    mutating func reset() {
        x1 = 0; x2 = 0; h1 = 0; h2 = 0; p1 = 0; p2 = 0; c1 = 0; c2 = 0; a1 = 0; a2 = 0
    }
}
