import Foundation

/// Renders one planned event: the dry recipe, the transmission path, then a
/// gain that puts its loudest window at exactly the requested level.
enum EventRenderer {
    /// Events are never rendered with a sample peak above this (-1 dBFS).
    static let peakLimit: Float = 0.891

    struct Output {
        var samples: [Float]
        /// True when the gain had to be lowered to respect `peakLimit`
        /// (the event is then quieter than its ground truth says).
        var limited: Bool
    }

    static func render(
        recipe: SoundRecipe, transmission: FloorTransmission, seed: UInt64, duration: Double, levelDBFS: Double,
        sampleRate: Double
    ) -> Output {
        let length = Int(((recipe.renderLength + transmission.renderTail) * sampleRate).rounded(.up)) + 1
        var samples = [Float](repeating: 0, count: length)
        recipe.render(into: &samples, sampleRate: sampleRate)
        var rng = SynthRandom(seed: SynthRandom.derive(seed, 0x7472_616E))
        transmission.apply(to: &samples, sampleRate: sampleRate, rng: &rng)
        let power = loudestWindowPower(samples, duration: duration, sampleRate: sampleRate)
        var gain = Float((SynthLevel.power(dBFS: levelDBFS) / max(power, 1e-30)).squareRoot())
        var limited = false
        samples.withUnsafeMutableBufferPointer { p in
            var peak: Float = 0
            for i in 0..<p.count { peak = max(peak, abs(p[i])) }
            if peak * gain > peakLimit {
                gain = peakLimit / peak
                limited = true
            }
            for i in 0..<p.count { p[i] *= gain }
        }
        return Output(samples: samples, limited: limited)
    }

    /// Mean power of the loudest window of `min(100 ms, duration)` lying within
    /// `[0, duration]` (the ground-truth level definition).
    static func loudestWindowPower(_ samples: [Float], duration: Double, sampleRate: Double) -> Double {
        let span = min(samples.count, max(1, Int((duration * sampleRate).rounded())))
        let window = max(1, min(span, Int((min(0.1, duration) * sampleRate).rounded())))
        return samples.withUnsafeBufferPointer { x in
            var sum = 0.0
            for i in 0..<window { sum += Double(x[i]) * Double(x[i]) }
            var best = sum
            if span > window {
                for i in window..<span {
                    sum += Double(x[i]) * Double(x[i]) - Double(x[i - window]) * Double(x[i - window])
                    best = max(best, sum)
                }
            }
            return best / Double(window)
        }
    }
}
