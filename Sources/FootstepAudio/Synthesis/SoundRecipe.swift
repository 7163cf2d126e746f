import Foundation

/// One resonance of a struck object or floor: a damped sinusoid.
struct SoundMode {
    var frequency: Double
    /// Amplitude time constant in seconds (-30 dB after 3.45 tau).
    var tau: Double
    var amplitude: Double
}

/// The primitives every sound model is assembled from. Times in seconds from
/// the event onset, frequencies in Hz; nothing depends on the sample rate.
enum SoundComponent {
    /// Struck resonances with an exponential attack of time constant `attack`.
    case modes(start: Double, attack: Double, modes: [SoundMode])
    /// Band-passed (4th order) noise: linear attack, hold, exponential decay.
    /// `roughness` (0...1) adds slow random amplitude modulation (scuffing grain).
    case noise(
        start: Double, attack: Double, hold: Double, tau: Double, low: Double, high: Double, amplitude: Double,
        roughness: Double)
    /// A tonal note with harmonic amplitudes `harmonics[k]` for harmonic k + 1 and a
    /// relative pitch glide over its length.
    case tone(
        start: Double, attack: Double, length: Double, release: Double, frequency: Double, harmonics: [Double],
        amplitude: Double, glide: Double)
    /// Stick-slip friction: an irregular pulse train (rate gliding from `rateStart`
    /// to `rateEnd`) through a resonant band-pass, plus band noise.
    case scrape(
        start: Double, attack: Double, length: Double, rateStart: Double, rateEnd: Double, center: Double,
        amplitude: Double)

    var start: Double {
        switch self {
        case .modes(let start, _, _), .noise(let start, _, _, _, _, _, _, _), .tone(let start, _, _, _, _, _, _, _),
            .scrape(let start, _, _, _, _, _, _):
            start
        }
    }

    /// Time after `start` at which the component is `decades` * 20 dB down (1.5 = -30 dB).
    func length(decades: Double) -> Double {
        let k = log(10) * decades
        switch self {
        case .modes(_, let attack, let modes):
            return 3 * attack + k * (modes.map(\.tau).max() ?? 0)
        case .noise(_, let attack, let hold, let tau, _, _, _, _):
            return attack + hold + k * tau
        case .tone(_, let attack, let length, let release, _, _, _, _):
            return attack + length + release
        case .scrape(_, _, let length, _, _, _, _):
            return length
        }
    }
}

/// A sound event as a list of components, planned without rendering so that
/// its duration is known up front.
struct SoundRecipe {
    var components: [SoundComponent]
    /// Seed of the noise inside the components.
    var noiseSeed: UInt64

    /// Nominal audible duration: the latest component end at -30 dB.
    var duration: Double {
        components.map { $0.start + $0.length(decades: 1.5) }.max() ?? 0
    }

    /// How long to render so the tails reach about -60 dB.
    var renderLength: Double {
        components.map { $0.start + $0.length(decades: 3) }.max() ?? 0
    }

    /// Renders the dry (untransmitted) sound into `buffer`, which must be long enough.
    func render(into buffer: inout [Float], sampleRate: Double) {
        var rng = SynthRandom(seed: noiseSeed)
        buffer.withUnsafeMutableBufferPointer { out in
            for component in components {
                let n0 = Int((component.start * sampleRate).rounded())
                guard n0 < out.count else { continue }
                let room = out.count - n0
                let base = out.baseAddress! + n0
                switch component {
                case .modes(_, let attack, let modes):
                    for mode in modes {
                        Self.addMode(mode, attack: attack, into: base, count: room, sampleRate: sampleRate)
                    }
                case .noise(_, let attack, let hold, let tau, let low, let high, let amplitude, let roughness):
                    let n = min(room, Int(component.length(decades: 3) * sampleRate) + 1)
                    Self.addNoise(
                        into: base, count: n, sampleRate: sampleRate, attack: attack, hold: hold, tau: tau, low: low,
                        high: high, amplitude: amplitude, roughness: roughness, rng: &rng)
                case .tone(
                    _, let attack, let length, let release, let frequency, let harmonics, let amplitude, let glide):
                    Self.addTone(
                        into: base, count: room, sampleRate: sampleRate, attack: attack, length: length,
                        release: release, frequency: frequency, harmonics: harmonics, amplitude: amplitude,
                        glide: glide)
                case .scrape(_, let attack, let length, let rateStart, let rateEnd, let center, let amplitude):
                    Self.addScrape(
                        into: base, count: room, sampleRate: sampleRate, attack: attack, length: length,
                        rateStart: rateStart, rateEnd: rateEnd, center: center, amplitude: amplitude, rng: &rng)
                }
            }
        }
    }

    private static func addMode(
        _ mode: SoundMode, attack: Double, into out: UnsafeMutablePointer<Float>, count: Int, sampleRate: Double
    ) {
        guard mode.frequency < 0.45 * sampleRate, mode.amplitude != 0 else { return }
        let n = min(count, Int(log(1000) * mode.tau * sampleRate) + 1)
        let w = 2 * Double.pi * mode.frequency / sampleRate
        let r = exp(-1 / (mode.tau * sampleRate))
        let rc = r * cos(w)
        let rs = r * sin(w)
        var re = 1.0
        var im = 0.0  // A r^n e^{i w n}; the output is its imaginary part
        let ka = attack > 0 ? exp(-1 / (attack * sampleRate)) : 0
        var rest = 1.0  // 1 - attack envelope
        for i in 0..<n {
            out[i] += Float(mode.amplitude * im * (1 - rest))
            let nre = re * rc - im * rs
            im = re * rs + im * rc
            re = nre
            rest *= ka
        }
    }

    private static func addNoise(
        into out: UnsafeMutablePointer<Float>, count n: Int, sampleRate: Double, attack: Double, hold: Double,
        tau: Double, low: Double, high: Double, amplitude: Double, roughness: Double, rng: inout SynthRandom
    ) {
        let burst = UnsafeMutablePointer<Float>.allocate(capacity: n)
        defer { burst.deallocate() }
        let a = Int(attack * sampleRate)
        let h = Int(hold * sampleRate)
        let decay = exp(-1 / (max(tau, 1e-4) * sampleRate))
        var env = 1.0
        var grain = SynthOnePole(cutoff: 35, sampleRate: sampleRate)
        let grainScale = 0.6 * (3 * (2 - grain.a) / grain.a).squareRoot()  // 0.6 x unit variance
        for i in 0..<n {
            let shape: Double
            if i < a {
                shape = Double(i + 1) / Double(a + 1)
            } else if i < a + h {
                shape = 1
            } else {
                env *= decay
                shape = env
            }
            let g = grain.process(Double(rng.noise()))
            let mod = max(0, 1 + roughness * g * grainScale)
            burst[i] = Float(amplitude * shape * mod) * rng.noise()
        }
        // 4th-order band-pass; 1.7 restores roughly the level lost to the band limit.
        var hp1 = SynthBiquad.highpass(low, sampleRate: sampleRate)
        var hp2 = hp1
        var lp1 = SynthBiquad.lowpass(high, sampleRate: sampleRate)
        var lp2 = lp1
        hp1.process(burst, count: n)
        hp2.process(burst, count: n)
        lp1.process(burst, count: n)
        lp2.process(burst, count: n)
        for i in 0..<n { out[i] += burst[i] * 1.7 }
    }

    private static func addTone(
        into out: UnsafeMutablePointer<Float>, count: Int, sampleRate: Double, attack: Double, length: Double,
        release: Double, frequency: Double, harmonics: [Double], amplitude: Double, glide: Double
    ) {
        let total = attack + length + release
        let n = min(count, Int(total * sampleRate))
        var phase = 0.0
        for i in 0..<n {
            let t = Double(i) / sampleRate
            let env: Double
            if t < attack {
                env = t / attack
            } else if t < attack + length {
                env = exp(-(t - attack) / (2 * length + 0.2))
            } else {
                env = exp(-length / (2 * length + 0.2)) * max(0, 1 - (t - attack - length) / release)
            }
            let f = frequency * (1 + glide * min(t / total, 1))
            phase += f / sampleRate
            if phase >= 1 { phase -= 1 }
            var s = 0.0
            for (k, a) in harmonics.enumerated() where Double(k + 1) * f < 0.45 * sampleRate {
                s += a * sin(2 * Double.pi * Double(k + 1) * phase)
            }
            out[i] += Float(amplitude * env * s)
        }
    }

    private static func addScrape(
        into out: UnsafeMutablePointer<Float>, count: Int, sampleRate: Double, attack: Double, length: Double,
        rateStart: Double, rateEnd: Double, center: Double, amplitude: Double, rng: inout SynthRandom
    ) {
        let n = min(count, Int(length * sampleRate))
        var body = SynthBiquad.bandpass(center, q: 6, sampleRate: sampleRate)
        var squeal = SynthBiquad.bandpass(center * 2.1, q: 9, sampleRate: sampleRate)
        var hiss = SynthBiquad.bandpass(center * 1.5, q: 0.8, sampleRate: sampleRate)
        let release = min(0.04, length / 4)
        var phase = 0.0
        var wobble = 1.0
        for i in 0..<n {
            let t = Double(i) / sampleRate
            let env = min(1, t / attack) * min(1, max(0, length - t) / release)
            if i % 64 == 0 { wobble = min(1.25, max(0.75, wobble + 0.04 * Double(rng.noise()))) }
            phase += (rateStart + (rateEnd - rateStart) * t / length) * wobble / sampleRate
            var pulse = 0.0
            if phase >= 1 {
                phase -= 1
                pulse = 0.6 + 0.4 * rng.uniform()
            }
            let x = pulse * 8 + Double(rng.noise()) * 0.25
            let y = body.process(x) + 0.4 * squeal.process(x) + hiss.process(Double(rng.noise()) * 0.5)
            out[i] += Float(amplitude * env * y)
        }
    }
}
