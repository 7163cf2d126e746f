import Foundation

/// Speech-like babble from a few voices: a glottal pulse train (with declining
/// phrase intonation) through three vowel formant filters, shaped into
/// syllables at 3-6 Hz, grouped into phrases with pauses, plus a little breath
/// noise at syllable starts (consonants).
final class BabbleGenerator: BackgroundGenerator {
    private static let vowels: [(Double, Double, Double)] = [
        (730, 1090, 2440), (270, 2290, 3010), (300, 870, 2240), (530, 1840, 2480), (570, 840, 2410),
        (660, 1720, 2410),
    ]

    private struct Voice {
        var rng: SynthRandom
        var baseF0: Double
        var formantScale: Double
        var amplitude: Double
        var phase = 0.0
        var f0 = 120.0
        var syllableLength = 1
        var position = 0
        var pauseLeft = 0
        var syllablesLeft = 0
        var phraseSyllables = 1
        var consonant = 0.0
        var formants = [SynthBiquad](repeating: SynthBiquad.bandpass(500, q: 5, sampleRate: 16000), count: 3)
    }

    private var voices: [Voice]
    private let sampleRate: Double

    init(seed: UInt64, sampleRate: Double) {
        self.sampleRate = sampleRate
        var rng = SynthRandom(seed: seed)
        voices = (0..<4).map { _ in
            let female = rng.chance(0.5)
            var voice = Voice(
                rng: SynthRandom(seed: rng.next()), baseF0: female ? rng.uniform(170, 240) : rng.uniform(90, 140),
                formantScale: female ? rng.uniform(1.1, 1.2) : rng.uniform(0.95, 1.05),
                amplitude: rng.uniform(0.6, 1.2))
            voice.pauseLeft = Int(rng.uniform(0, 1.5) * sampleRate)
            return voice
        }
    }

    private func startSyllable(_ v: inout Voice) {
        if v.syllablesLeft == 0 {
            v.phraseSyllables = v.rng.int(4...14)
            v.syllablesLeft = v.phraseSyllables
            v.pauseLeft = Int(v.rng.uniform(0.2, 1.2) * sampleRate)
        }
        let progress = 1 - Double(v.syllablesLeft) / Double(v.phraseSyllables)
        v.syllablesLeft -= 1
        v.f0 = v.baseF0 * (1.12 - 0.25 * progress) * v.rng.uniform(0.93, 1.07)
        v.syllableLength = max(1, Int(1 / v.rng.uniform(3, 6) * sampleRate))
        v.position = 0
        v.consonant = v.rng.chance(0.6) ? v.rng.uniform(0.3, 1) : 0
        let (f1, f2, f3) = v.rng.pick(Self.vowels)
        for (k, f) in [f1, f2, f3].enumerated() {
            let hz = f * v.formantScale
            var filter = SynthBiquad.bandpass(hz, q: max(2, hz / 90), sampleRate: sampleRate)
            filter.z1 = v.formants[k].z1
            filter.z2 = v.formants[k].z2
            v.formants[k] = filter
        }
    }

    func add(into out: UnsafeMutablePointer<Float>, count: Int, gain: Float) {
        let consonantSamples = 0.04 * sampleRate
        for index in voices.indices {
            var v = voices[index]
            var a = v.formants[0]
            var b = v.formants[1]
            var c = v.formants[2]
            for i in 0..<count {
                if v.pauseLeft > 0 {
                    v.pauseLeft -= 1
                    continue
                }
                if v.position >= v.syllableLength {
                    v.formants = [a, b, c]
                    startSyllable(&v)
                    (a, b, c) = (v.formants[0], v.formants[1], v.formants[2])
                    if v.pauseLeft > 0 { continue }
                }
                let x = Double(v.position) / Double(v.syllableLength)
                let s = sin(Double.pi * x)
                let env = s * s
                v.phase += v.f0 / sampleRate
                var excitation = 0.0
                if v.phase >= 1 {
                    v.phase -= 1
                    excitation = 1
                }
                if Double(v.position) < consonantSamples {
                    excitation += v.consonant * 0.3 * Double(v.rng.noise())
                }
                let y = a.process(excitation) + 0.7 * b.process(excitation) + 0.4 * c.process(excitation)
                out[i] += gain * Float(v.amplitude * env * y)
                v.position += 1
            }
            v.formants = [a, b, c]
            voices[index] = v
        }
    }
}
