import Foundation

// Design of the digital A and C weightings.
//
// Analog prototypes (IEC 61672-1:2013 Annex E):
//   A(s) = k s⁴ / ((s+ω1)² (s+ω2) (s+ω3) (s+ω4)²),  C(s) = k s² / ((s+ω1)² (s+ω4)²)
// with f1 = 20.598997, f2 = 107.65265, f3 = 737.86223, f4 = 12194.217 Hz.
//
// * The high-pass factors s²/(s+ω1)² and s²/((s+ω2)(s+ω3)) have their poles far
//   below Nyquist and are mapped by the bilinear transform (no prewarping):
//   warping moves them by well under 1 %.
// * The double pole at 12194 Hz is at or above Nyquist for 16–24 kHz sample rates,
//   where the bilinear transform would put a zero at Nyquist (-∞ dB at 8 kHz for
//   fs = 16 kHz). It is realised as one magnitude-matched section after
//   M. Vicanek, "Matched Second Order Digital Filters" (2016): poles by impulse
//   invariance, z = exp(-ω4/fs) (double), and the numerator expressed through
//   |B(e^jω)|² = B0·φ0 + B1·φ1 + B2·φ2 (φ0 = cos²(ω/2), φ1 = sin²(ω/2), φ2 = 4φ0φ1),
//   with b0, b1, b2 recovered from B0, B1, B2 in closed form (paper, section 2).
//   Instead of matching |H|² at exactly three frequencies we choose B0, B1, B2 by a
//   least-squares fit (relative error of |H|², linear in the B's) on a log grid from
//   200 Hz to Nyquist, against the analog magnitude divided by the digital high-pass
//   factors: the one section thereby also absorbs the small bilinear warping of the
//   high-pass part. If the fit cannot be factorised (never seen for 8–192 kHz) the
//   paper's three-point match (DC, fs/4, Nyquist) is used.
// * The cascade is scaled to exactly 0 dB at 1 kHz.
//
// Measured deviation |digital − Annex E design goal| at the exact one-third-octave
// frequencies 1000·10^(n/10) below Nyquist (10 Hz … 20 kHz); see the tests:
//   fs = 16000:  A 0.35 dB, C 0.35 dB (both at 7943 Hz; ≤ 0.15 dB up to 6310 Hz)
//   fs = 44100:  A 0.20 dB, C 0.19 dB (both at 15849 Hz; ≤ 0.10 dB up to 6310 Hz)
//   fs = 48000:  A 0.28 dB, C 0.28 dB (both at 19953 Hz; ≤ 0.09 dB up to 6310 Hz)
// all far inside the class 1 acceptance limits (see FootstepDSPTests/WeightingFilterTests.swift).

extension WeightingFilter {
    static func design(_ weighting: FrequencyWeighting, sampleRate fs: Double) -> [BiquadCoefficients] {
        let w1 = 2 * Double.pi * FrequencyWeighting.f1
        let w2 = 2 * Double.pi * FrequencyWeighting.f2
        let w3 = 2 * Double.pi * FrequencyWeighting.f3
        var sections: [BiquadCoefficients]
        switch weighting {
        case .z:
            return []
        case .c:
            sections = [bilinearHighPass(w1, w1, sampleRate: fs)]
        case .a:
            sections = [bilinearHighPass(w1, w1, sampleRate: fs), bilinearHighPass(w2, w3, sampleRate: fs)]
        }
        let highPass = sections
        let target: (Double) -> Double = { f in
            var hp = 1.0
            for s in highPass {
                let m = s.magnitude(atFrequency: f, sampleRate: fs)
                hp *= m * m
            }
            return weighting.analogMagnitudeSquared(f) / hp
        }
        sections.append(matchedLowPass(target: target, sampleRate: fs))
        // Normalise the cascade to exactly 0 dB at 1 kHz.
        var gain = 1.0
        for s in sections {
            gain *= s.magnitude(atFrequency: 1000, sampleRate: fs)
        }
        sections[sections.count - 1] = sections[sections.count - 1].scaled(by: 1 / gain)
        return sections
    }

    /// Bilinear transform (s = 2fs (1 − z⁻¹)/(1 + z⁻¹)) of s² / ((s + wa)(s + wb)).
    static func bilinearHighPass(_ wa: Double, _ wb: Double, sampleRate fs: Double) -> BiquadCoefficients {
        let k = 2 * fs
        let a0 = (k + wa) * (k + wb)
        let a1 = (k + wa) * (wb - k) + (wa - k) * (k + wb)
        let a2 = (wa - k) * (wb - k)
        return BiquadCoefficients(b0: k * k, b1: -2 * k * k, b2: k * k, a0: a0, a1: a1, a2: a2)
    }

    /// The 12194 Hz double pole as one section whose |H|² follows `target`
    /// (Vicanek's poles, least-squares numerator; see the file comment).
    static func matchedLowPass(target: (Double) -> Double, sampleRate fs: Double) -> BiquadCoefficients {
        let w4 = 2 * Double.pi * FrequencyWeighting.f4
        let p = exp(-w4 / fs)
        let a1 = -2 * p
        let a2 = p * p
        let capA0 = (1 + a1 + a2) * (1 + a1 + a2)
        let capA1 = (1 - a1 + a2) * (1 - a1 + a2)
        let capA2 = -4 * a2

        // Weighted linear least squares: minimise Σ (B·φ / (T·A(φ)) − 1)².
        let nyquist = fs / 2
        let lower = min(200.0, nyquist / 10)
        let upper = 0.999 * nyquist
        let points = 300
        var m = [[Double]](repeating: [0, 0, 0], count: 3)
        var v = [0.0, 0.0, 0.0]
        for k in 0..<points {
            let f = lower * pow(upper / lower, Double(k) / Double(points - 1))
            let phi1 = pow(sin(Double.pi * f / fs), 2)
            let phi0 = 1 - phi1
            let phi2 = 4 * phi0 * phi1
            let denominator = target(f) * (capA0 * phi0 + capA1 * phi1 + capA2 * phi2)
            let row = [phi0 / denominator, phi1 / denominator, phi2 / denominator]
            for i in 0..<3 {
                v[i] += row[i]
                for j in 0..<3 { m[i][j] += row[i] * row[j] }
            }
        }
        if let b = solve3(m, v), let section = section(fromSquaredMagnitude: b, a1: a1, a2: a2) {
            return section
        }
        // Fallback: Vicanek's three-point match of the pure analog low-pass ω4²/(s+ω4)².
        let lowPass: (Double) -> Double = { f in
            let r = FrequencyWeighting.f4 * FrequencyWeighting.f4 / (f * f + FrequencyWeighting.f4 * FrequencyWeighting.f4)
            return r * r
        }
        let capB0 = capA0
        let capB1 = capA1 * lowPass(nyquist)
        let fm = fs / 4
        let phi1 = pow(sin(Double.pi * fm / fs), 2)
        let phi0 = 1 - phi1
        let phi2 = 4 * phi0 * phi1
        let capB2 = (lowPass(fm) * (capA0 * phi0 + capA1 * phi1 + capA2 * phi2) - capB0 * phi0 - capB1 * phi1) / phi2
        if let section = section(fromSquaredMagnitude: [capB0, capB1, capB2], a1: a1, a2: a2) {
            return section
        }
        // Last resort (unreachable for audio rates): numerator (1 + z⁻¹)²/4 · DC gain.
        let dc = (1 + a1 + a2) / 4
        return BiquadCoefficients(b0: dc, b1: 2 * dc, b2: dc, a1: a1, a2: a2)
    }

    /// b0, b1, b2 from B0 = (b0+b1+b2)², B1 = (b0−b1+b2)², B2 = −4·b0·b2 (Vicanek, eq. for the numerator).
    static func section(fromSquaredMagnitude capB: [Double], a1: Double, a2: Double) -> BiquadCoefficients? {
        let (capB0, capB1, capB2) = (capB[0], capB[1], capB[2])
        guard capB0 >= 0, capB1 >= 0 else { return nil }
        let r0 = capB0.squareRoot(), r1 = capB1.squareRoot()
        let w = (r0 + r1) / 2
        let discriminant = w * w + capB2
        guard discriminant >= 0, w > 0 else { return nil }
        let b0 = (w + discriminant.squareRoot()) / 2
        let b1 = (r0 - r1) / 2
        let b2 = -capB2 / (4 * b0)
        let c = BiquadCoefficients(b0: b0, b1: b1, b2: b2, a1: a1, a2: a2)
        guard [b0, b1, b2].allSatisfy(\.isFinite) else { return nil }
        return c
    }

    /// Solves the 3×3 system m·x = v by Gaussian elimination with partial pivoting.
    static func solve3(_ matrix: [[Double]], _ vector: [Double]) -> [Double]? {
        var a = matrix
        var b = vector
        for col in 0..<3 {
            var pivot = col
            for row in (col + 1)..<3 where abs(a[row][col]) > abs(a[pivot][col]) { pivot = row }
            guard abs(a[pivot][col]) > 0 else { return nil }
            a.swapAt(col, pivot)
            b.swapAt(col, pivot)
            for row in (col + 1)..<3 {
                let factor = a[row][col] / a[col][col]
                for k in col..<3 { a[row][k] -= factor * a[col][k] }
                b[row] -= factor * b[col]
            }
        }
        var x = [0.0, 0.0, 0.0]
        for row in stride(from: 2, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<3 { sum -= a[row][k] * x[k] }
            x[row] = sum / a[row][row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
