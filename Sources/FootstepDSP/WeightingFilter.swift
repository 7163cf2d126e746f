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
/// four independent recursions (section-by-section passes over a block would each wait
/// on their own recursion). Direct form I puts only a multiply and a subtraction on the
/// recursive path (transposed form II has three operations there).
struct ACWeightingCascade: Sendable {
    /// The coefficients of two sections side by side (SIMD lanes).
    private struct SectionPair: Sendable {
        var b0, b1, b2, a1, a2: SIMD2<Double>
    }

    private let highPass: BiquadCoefficients
    /// A's second high-pass (lane 0) and C's low-pass (lane 1): both are fed by the
    /// shared high-pass, so they run as one two-lane section.
    private let pair: SectionPair
    private let aLowPass: BiquadCoefficients
    // Past inputs and outputs (1 = one sample ago, 2 = two samples ago): x (input),
    // h (shared high-pass), q (the pair: A's intermediate, C's output), a (A's output).
    private var x1 = 0.0, x2 = 0.0
    private var h1 = 0.0, h2 = 0.0
    private var q1 = SIMD2<Double>(), q2 = SIMD2<Double>()
    private var a1 = 0.0, a2 = 0.0

    init(sampleRate: Double) {
        let a = WeightingFilter.design(.a, sampleRate: sampleRate)
        let c = WeightingFilter.design(.c, sampleRate: sampleRate)
        precondition(a.count == 3 && c.count == 2 && a[0] == c[0], "A and C designs no longer share their first section")
        precondition(a[0].b1 == -2 * a[0].b0 && a[0].b2 == a[0].b0, "the shared high-pass is not a bilinear s² section")
        highPass = a[0]
        aLowPass = a[2]
        let p = a[1], q = c[1]
        pair = SectionPair(
            b0: .init(p.b0, q.b0), b1: .init(p.b1, q.b1), b2: .init(p.b2, q.b2), a1: .init(p.a1, q.a1),
            a2: .init(p.a2, q.a2))
    }

    /// Filters `input` and writes the squared A- and C-weighted samples.
    /// `input` must be finite (see `LevelMeter`); the outputs hold at least `input.count`.
    mutating func processSquared(
        _ input: UnsafeBufferPointer<Float>, aSquared: UnsafeMutablePointer<Double>, cSquared: UnsafeMutablePointer<Double>
    ) {
        let kq = pair, ka = aLowPass
        // The shared high-pass has the numerator g·(1, −2, 1) (bilinear s² zeros).
        let hg = highPass.b0, ha1 = highPass.a1, ha2 = highPass.a2
        let ab0 = ka.b0, ab1 = ka.b1, ab2 = ka.b2, aa1 = ka.a1, aa2 = ka.a2
        var x1 = x1, x2 = x2, h1 = h1, h2 = h2, q1 = q1, q2 = q2, a1 = a1, a2 = a2
        for i in 0..<input.count {
            let x = Double(input[i])
            // Direct form I; the feed-forward part does not wait for the last output,
            // so only "− a1·y1" is on each section's recursive path.
            let h = (hg * ((x + x2) - 2 * x1) - ha2 * h2) - ha1 * h1
            let q = (kq.b0 * h + kq.b1 * h1 + kq.b2 * h2 - kq.a2 * q2) - kq.a1 * q1
            let p = q[0], p1 = q1[0], p2 = q2[0]
            let a = (ab0 * p + ab1 * p1 + ab2 * p2 - aa2 * a2) - aa1 * a1
            let c = q[1]
            aSquared[i] = a * a
            cSquared[i] = c * c
            x2 = x1; x1 = x
            h2 = h1; h1 = h
            q2 = q1; q1 = q
            a2 = a1; a1 = a
        }
        // Flush values that long silences would leave in the (slow) subnormal range.
        @inline(__always) func flushed(_ v: Double) -> Double { abs(v) < 1e-30 ? 0 : v }
        self.x1 = flushed(x1); self.x2 = flushed(x2)
        self.h1 = flushed(h1); self.h2 = flushed(h2)
        self.q1 = SIMD2(flushed(q1[0]), flushed(q1[1])); self.q2 = SIMD2(flushed(q2[0]), flushed(q2[1]))
        self.a1 = flushed(a1); self.a2 = flushed(a2)
    }

    /// Returns the cascade to rest.
    mutating func reset() {
        x1 = 0; x2 = 0; h1 = 0; h2 = 0; q1 = .zero; q2 = .zero; a1 = 0; a2 = 0
    }
}
