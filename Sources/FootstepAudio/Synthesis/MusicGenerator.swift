import Foundation

/// Pop-like music as heard from next door: a plucked bass on every beat
/// following a four-chord progression, soft sustained triads, a kick on beats
/// 1 and 3, a snare on 2 and 4 and off-beat hi-hats. Everything is a function
/// of the sample index, so it streams without drift.
final class MusicGenerator: BackgroundGenerator {
    private let sampleRate: Double
    private let beat: Double
    private let key: Int
    private let progression: [(root: Int, minor: Bool)]
    private var rng: SynthRandom
    private var n: Int64 = 0
    private var bassPhase = 0.0
    private var chordPhases = [0.0, 0.0, 0.0]
    private var kickPhase = 0.0
    private var hatLow = 0.0

    init(seed: UInt64, sampleRate: Double) {
        var r = SynthRandom(seed: seed)
        self.sampleRate = sampleRate
        beat = 60 / r.uniform(80, 128)
        key = r.int(31...42)  // bass root around 49-92 Hz
        let progressions: [[(Int, Bool)]] = [
            [(0, false), (7, false), (9, true), (5, false)], [(9, true), (5, false), (0, false), (7, false)],
            [(0, false), (5, false), (7, false), (5, false)], [(0, true), (8, false), (3, false), (10, false)],
        ]
        progression = r.pick(progressions).map { (root: $0.0, minor: $0.1) }
        rng = SynthRandom(seed: r.next())
    }

    private static func hz(_ midi: Int) -> Double { 440 * pow(2, Double(midi - 69) / 12) }

    func add(into out: UnsafeMutablePointer<Float>, count: Int, gain: Float) {
        let twoPi = 2 * Double.pi
        let hatCoefficient = 1 - exp(-twoPi * min(5000, 0.45 * sampleRate) / sampleRate)
        var rng = self.rng
        var n = self.n
        var bassPhase = self.bassPhase
        var chordPhases = self.chordPhases
        var kickPhase = self.kickPhase
        var hatLow = self.hatLow
        for i in 0..<count {
            let t = Double(n) / sampleRate
            let beatIndex = Int(t / beat)
            let tb = t - Double(beatIndex) * beat
            let chord = progression[(beatIndex / 4) % progression.count]
            let beatInBar = beatIndex % 4
            let tBar = tb + Double(beatInBar) * beat

            // Bass: plucked, root on beats, the fifth on beat 4.
            let bassNote = key + chord.root % 12 + (beatInBar == 3 ? 7 : 0)
            bassPhase += Self.hz(bassNote) / sampleRate
            if bassPhase >= 1 { bassPhase -= 1 }
            let bassEnv = min(1, tb / 0.005) * exp(-tb / (0.35 * beat))
            let bp = twoPi * bassPhase
            var s = 0.9 * bassEnv * (sin(bp) + 0.5 * sin(2 * bp) + 0.25 * sin(3 * bp))

            // Chords: a soft triad two octaves up, swelling over the bar.
            let intervals = [0, chord.minor ? 3 : 4, 7]
            let chordEnv = 0.12 * min(1, tBar / 0.08) * exp(-tBar / (6 * beat))
            for k in 0..<3 {
                chordPhases[k] += Self.hz(key + 24 + chord.root % 12 + intervals[k]) / sampleRate
                if chordPhases[k] >= 1 { chordPhases[k] -= 1 }
                s += chordEnv * sin(twoPi * chordPhases[k])
            }

            // Drums.
            if beatInBar == 0 || beatInBar == 2 {
                kickPhase += (45 + 70 * exp(-tb / 0.03)) / sampleRate
                if kickPhase >= 1 { kickPhase -= 1 }
                s += 1.1 * exp(-tb / 0.12) * sin(twoPi * kickPhase)
            } else {
                kickPhase = 0
                s += exp(-tb / 0.05) * (0.25 * Double(rng.noise()) + 0.3 * sin(twoPi * 180 * tb))
            }
            let white = Double(rng.noise())
            hatLow += hatCoefficient * (white - hatLow)
            let tHat = tb >= beat / 2 ? tb - beat / 2 : tb + beat / 2
            s += 0.12 * exp(-tHat / 0.015) * (white - hatLow)

            out[i] += gain * Float(s)
            n += 1
        }
        self.rng = rng
        self.n = n
        self.bassPhase = bassPhase
        self.chordPhases = chordPhases
        self.kickPhase = kickPhase
        self.hatLow = hatLow
    }
}
