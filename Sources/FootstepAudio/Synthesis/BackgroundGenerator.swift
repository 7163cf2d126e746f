import Foundation

/// A streaming background sound. Output depends only on the seed and on how
/// many samples came before, never on how the calls were split.
///
/// - Note: Not thread-safe; owned by one renderer.
protocol BackgroundGenerator: AnyObject {
    /// Adds `count` samples, multiplied by `gain`, to `out`.
    func add(into out: UnsafeMutablePointer<Float>, count: Int, gain: Float)
}

enum BackgroundGenerators {
    static func make(_ kind: BackgroundKind, seed: UInt64, sampleRate: Double) -> any BackgroundGenerator {
        switch kind {
        case .hum50: HumGenerator(frequency: 50, seed: seed, sampleRate: sampleRate)
        case .hum60: HumGenerator(frequency: 60, seed: seed, sampleRate: sampleRate)
        case .pink: PinkNoiseGenerator(seed: seed)
        case .brown: BrownNoiseGenerator(seed: seed, sampleRate: sampleRate)
        case .babble: BabbleGenerator(seed: seed, sampleRate: sampleRate)
        case .music: MusicGenerator(seed: seed, sampleRate: sampleRate)
        }
    }
}

/// Mains hum: the fundamental and harmonics 2, 3, 5, 7 with random strengths
/// and a slow ±10 % amplitude wobble. Rotating phasors, renormalised every 1024 samples.
final class HumGenerator: BackgroundGenerator {
    /// Per harmonic: re, im, rotation cos, rotation sin, amplitude (raw storage: fast in debug builds).
    private let state: UnsafeMutablePointer<Double>
    private let harmonicCount: Int
    private var wobbleRe = 1.0, wobbleIm = 0.0
    private let wobbleCos: Double, wobbleSin: Double
    private var sinceNormalise = 0

    init(frequency: Double, seed: UInt64, sampleRate: Double) {
        var rng = SynthRandom(seed: seed)
        let harmonics = [1.0, 2, 3, 5, 7].filter { $0 * frequency < 0.45 * sampleRate }
        let strengths = [
            1.0, rng.uniform(0.2, 0.6), rng.uniform(0.3, 0.8), rng.uniform(0.1, 0.4), rng.uniform(0.05, 0.25),
        ]
        harmonicCount = harmonics.count
        state = .allocate(capacity: 5 * harmonics.count)
        for (h, harmonic) in harmonics.enumerated() {
            let phase = rng.uniform(0, 2 * Double.pi)
            let w = 2 * Double.pi * harmonic * frequency / sampleRate
            (state + 5 * h).initialize(from: [cos(phase), sin(phase), cos(w), sin(w), strengths[h]], count: 5)
        }
        let wobble = 2 * Double.pi * rng.uniform(0.02, 0.08) / sampleRate
        wobbleCos = cos(wobble)
        wobbleSin = sin(wobble)
    }

    deinit { state.deallocate() }

    func add(into out: UnsafeMutablePointer<Float>, count: Int, gain: Float) {
        let k = harmonicCount
        let p = state
        var wRe = wobbleRe
        var wIm = wobbleIm
        var since = sinceNormalise
        var i = 0
        while i < count {
            var s = 0.0
            var h = 0
            while h < k {
                let q = p + 5 * h
                let r = q[0]
                let m = q[1]
                q[0] = r * q[2] - m * q[3]
                q[1] = r * q[3] + m * q[2]
                s += q[4] * m
                h += 1
            }
            let w = wRe
            wRe = w * wobbleCos - wIm * wobbleSin
            wIm = w * wobbleSin + wIm * wobbleCos
            out[i] += gain * Float(s * (1 + 0.1 * wIm))
            since += 1
            if since == 1024 {  // keep the phasors on the unit circle
                since = 0
                for h in 0..<k {
                    let q = p + 5 * h
                    let norm = 1 / (q[0] * q[0] + q[1] * q[1]).squareRoot()
                    q[0] *= norm
                    q[1] *= norm
                }
                let norm = 1 / (wRe * wRe + wIm * wIm).squareRoot()
                wRe *= norm
                wIm *= norm
            }
            i += 1
        }
        wobbleRe = wRe
        wobbleIm = wIm
        sinceNormalise = since
    }
}

/// Pink noise (Paul Kellet's refined filter on white noise): room and ventilation noise.
final class PinkNoiseGenerator: BackgroundGenerator {
    private var rng: SynthRandom
    private var b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0, b4 = 0.0, b5 = 0.0, b6 = 0.0

    init(seed: UInt64) { rng = SynthRandom(seed: seed) }

    func add(into out: UnsafeMutablePointer<Float>, count: Int, gain: Float) {
        var rng = self.rng
        var b0 = self.b0
        var b1 = self.b1
        var b2 = self.b2
        var b3 = self.b3
        var b4 = self.b4
        var b5 = self.b5
        var b6 = self.b6
        defer {
            self.rng = rng
            (self.b0, self.b1, self.b2, self.b3, self.b4, self.b5, self.b6) = (b0, b1, b2, b3, b4, b5, b6)
        }
        for i in 0..<count {
            let white = Double(rng.noise())
            b0 = 0.99886 * b0 + white * 0.0555179
            b1 = 0.99332 * b1 + white * 0.0750759
            b2 = 0.96900 * b2 + white * 0.1538520
            b3 = 0.86650 * b3 + white * 0.3104856
            b4 = 0.55000 * b4 + white * 0.5329522
            b5 = -0.7616 * b5 - white * 0.0168980
            let pink = b0 + b1 + b2 + b3 + b4 + b5 + b6 + white * 0.5362
            b6 = white * 0.115926
            out[i] += gain * Float(pink * 0.2)
        }
    }
}

/// Brown (red) noise: integrated white noise, leaky below 20 Hz so it stays bounded.
final class BrownNoiseGenerator: BackgroundGenerator {
    private var rng: SynthRandom
    private var y = 0.0
    private let leak: Double

    init(seed: UInt64, sampleRate: Double) {
        rng = SynthRandom(seed: seed)
        leak = exp(-2 * Double.pi * 20 / sampleRate)
    }

    func add(into out: UnsafeMutablePointer<Float>, count: Int, gain: Float) {
        var rng = self.rng
        var y = self.y
        defer { (self.rng, self.y) = (rng, y) }
        for i in 0..<count {
            y = leak * y + Double(rng.noise()) * 0.05
            out[i] += gain * Float(y)
        }
    }
}
