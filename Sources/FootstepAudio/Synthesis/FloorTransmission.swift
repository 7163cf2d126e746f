import Foundation

/// The path from the impact to the microphone: through a ceiling (floor
/// resonances, a steep low-pass and the room's reverberation) or direct (same
/// room: bright, only a little room reverberation).
///
/// The building (mode frequencies, cut-off, reverberation) is fixed by `seed`;
/// each event varies it slightly (where on the floor it happened).
struct FloorTransmission {
    struct Resonance {
        var frequency: Double
        var q: Double
        var gain: Double
    }

    let ceiling: Bool
    let floor: FloorType
    private let resonances: [Resonance]
    private let cutoff: Double
    private let reverbTime: Double
    private let reverbWet: Double
    private let combDelays: [Double]
    /// Level of the airborne/flanking path (walls, ducts) that carries a little of the
    /// dry sound past the floor's low-pass; 0 for the direct path.
    private let flankingGain: Double

    init(ceiling: Bool, floor: FloorType, seed: UInt64) {
        var rng = SynthRandom(seed: seed)
        self.ceiling = ceiling
        self.floor = floor
        combDelays = [0.0297, 0.0371, 0.0411, 0.0437].map { $0 * rng.uniform(0.8, 1.25) }
        switch (ceiling, floor) {
        case (false, _):
            flankingGain = 0
            resonances = []
            cutoff = rng.uniform(6000, 9000)
            reverbTime = rng.uniform(0.2, 0.4)
            reverbWet = rng.uniform(0.06, 0.14)
        case (true, .timberJoist):
            flankingGain = SynthLevel.gain(dB: rng.uniform(-40, -32))
            var modes = [Resonance(frequency: rng.uniform(15, 30), q: rng.uniform(3, 5), gain: rng.uniform(2, 3.5))]
            for _ in 0..<rng.int(2...3) {
                modes.append(Resonance(frequency: rng.uniform(40, 80), q: rng.uniform(5, 10), gain: rng.uniform(1, 2)))
            }
            resonances = modes
            cutoff = rng.uniform(150, 300)
            reverbTime = rng.uniform(0.3, 0.6)
            reverbWet = rng.uniform(0.15, 0.3)
        case (true, .concreteSlab):
            flankingGain = SynthLevel.gain(dB: rng.uniform(-48, -40))
            resonances = (0..<rng.int(2...3)).map { _ in
                Resonance(frequency: rng.uniform(60, 200), q: rng.uniform(4, 8), gain: rng.uniform(0.8, 1.5))
            }
            cutoff = rng.uniform(250, 400)
            reverbTime = rng.uniform(0.25, 0.45)
            reverbWet = rng.uniform(0.1, 0.2)
        }
    }

    private var longestModeTau: Double {
        resonances.map { $0.q / (Double.pi * $0.frequency) }.max() ?? 0
    }

    /// How much the transmission lengthens an event's nominal (-30 dB) duration.
    var durationExtension: Double {
        let reverb = reverbTime * max(0, 30 + 20 * log10(reverbWet)) / 60
        return max(2.3 * longestModeTau, reverb, 0.005)
    }

    /// Extra samples (in seconds) to render after the dry sound so tails are complete.
    var renderTail: Double {
        6.9 * longestModeTau + reverbTime
    }

    /// Applies the path in place; `rng` varies the building slightly per event.
    func apply(to buffer: inout [Float], sampleRate: Double, rng: inout SynthRandom) {
        let n = buffer.count
        buffer.withUnsafeMutableBufferPointer { raw in
            let x = raw.baseAddress!
            var flanking: [Float] = []
            if flankingGain > 0 {
                flanking = [Float](repeating: 0, count: n)
                var smooth = SynthOnePole(cutoff: 500, sampleRate: sampleRate)  // mass law: -6 dB/octave
                for i in 0..<n { flanking[i] = Float(flankingGain * smooth.process(Double(x[i]))) }
            }
            if !resonances.isEmpty {
                var filters = resonances.map { SynthBiquad.bandpass($0.frequency, q: $0.q, sampleRate: sampleRate) }
                let gains = resonances.map { $0.gain * rng.uniform(0.7, 1.4) }
                let k = filters.count
                var modal = [Float](repeating: 0, count: n)
                modal.withUnsafeMutableBufferPointer { m in
                    for r in 0..<k {
                        // Each resonance on a copy of the input, accumulated with its gain.
                        var f = filters[r]
                        let g = gains[r]
                        var s1 = f.z1
                        var s2 = f.z2
                        let (b0, b1, b2, a1, a2) = (f.b0, f.b1, f.b2, f.a1, f.a2)
                        for i in 0..<n {
                            let input = Double(x[i])
                            let y = b0 * input + s1
                            s1 = b1 * input - a1 * y + s2
                            s2 = b2 * input - a2 * y
                            m[i] += Float(g * y)
                        }
                        (f.z1, f.z2) = (s1, s2)
                        filters[r] = f
                    }
                    for i in 0..<n { x[i] += m[i] }
                }
            }
            let f = cutoff * rng.uniform(0.9, 1.1)
            var lp1 = SynthBiquad.lowpass(f, sampleRate: sampleRate)
            var lp2 = lp1
            lp1.process(x, count: n)
            lp2.process(x, count: n)
            flanking.withUnsafeBufferPointer { f in
                for i in 0..<f.count { x[i] += f[i] }
            }
            addReverb(x, count: n, sampleRate: sampleRate)
        }
    }

    /// A small Schroeder reverberator (four damped combs, two all-passes) added to the signal.
    private func addReverb(_ x: UnsafeMutablePointer<Float>, count n: Int, sampleRate: Double) {
        let wet = UnsafeMutablePointer<Float>.allocate(capacity: n)
        wet.initialize(repeating: 0, count: n)
        defer { wet.deallocate() }
        let longest = Int((combDelays.max() ?? 0.05) * sampleRate) + 2
        let line = UnsafeMutablePointer<Double>.allocate(capacity: longest)
        defer { line.deallocate() }
        let damping = ceiling ? 0.5 : 0.25
        for delaySeconds in combDelays {
            let d = max(1, Int(delaySeconds * sampleRate))
            let g = pow(10, -3 * delaySeconds / reverbTime)
            line.initialize(repeating: 0, count: d)
            var index = 0
            var state = 0.0
            for i in 0..<n {
                let out = line[index]
                state = out * (1 - damping) + state * damping
                line[index] = Double(x[i]) + g * state
                index += 1
                if index == d { index = 0 }
                wet[i] += Float(out * 0.25)
            }
        }
        for (seconds, g) in [(0.005, 0.7), (0.0017, 0.7)] {
            let d = max(1, Int(seconds * sampleRate))
            line.initialize(repeating: 0, count: d)
            var index = 0
            for i in 0..<n {
                let delayed = line[index]
                let v = Double(wet[i]) + g * delayed
                line[index] = v
                wet[i] = Float(delayed - g * v)
                index += 1
                if index == d { index = 0 }
            }
        }
        let mix = Float(reverbWet * 2)
        for i in 0..<n { x[i] += mix * wet[i] }
    }
}
