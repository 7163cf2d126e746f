/// The scenario's background layers, each scaled to its relative level and the
/// whole scaled so its mean power is exactly the requested level over the
/// calibration span (the first `min(duration, 20 s)`; the sounds are stationary
/// or repeat within that span, so it holds for the rest of the stream).
final class BackgroundMix {
    static let calibrationSeconds = 20.0

    private let generators: [any BackgroundGenerator]
    private let gains: [Float]

    init(layers: [BackgroundLayer], seed: UInt64, sampleRate: Double, levelDBFS: Double, duration: Double) {
        func make() -> [any BackgroundGenerator] {
            layers.enumerated().map { i, layer in
                BackgroundGenerators.make(
                    layer.kind, seed: SynthRandom.derive(seed, 0x6267_0000 + UInt64(i)), sampleRate: sampleRate)
            }
        }
        generators = make()
        guard !layers.isEmpty else {
            gains = []
            return
        }
        // Calibrate on identical copies: accumulate the Gram matrix of the raw layers.
        let copies = make()
        let k = layers.count
        let total = max(1, Int(min(duration, Self.calibrationSeconds) * sampleRate))
        let block = 4096
        var buffers = [[Float]](repeating: [Float](repeating: 0, count: block), count: k)
        var gram = [Double](repeating: 0, count: k * k)
        var done = 0
        while done < total {
            let n = min(block, total - done)
            for i in 0..<k {
                buffers[i].withUnsafeMutableBufferPointer { p in
                    for j in 0..<n { p[j] = 0 }
                    copies[i].add(into: p.baseAddress!, count: n, gain: 1)
                }
            }
            for i in 0..<k {
                for j in i..<k {
                    var sum = 0.0
                    for s in 0..<n { sum += Double(buffers[i][s]) * Double(buffers[j][s]) }
                    gram[i * k + j] += sum
                }
            }
            done += n
        }
        var weights = [Double](repeating: 0, count: k)
        for i in 0..<k {
            let power = max(gram[i * k + i] / Double(total), 1e-30)
            weights[i] = (SynthLevel.power(dBFS: layers[i].relativeLevelDB) / power).squareRoot()
        }
        var mixPower = 0.0
        for i in 0..<k {
            for j in i..<k {
                mixPower += (i == j ? 1 : 2) * weights[i] * weights[j] * gram[i * k + j] / Double(total)
            }
        }
        let scale = (SynthLevel.power(dBFS: levelDBFS) / max(mixPower, 1e-30)).squareRoot()
        gains = weights.map { Float($0 * scale) }
    }

    /// Adds the next `count` background samples to `out`.
    func add(into out: UnsafeMutablePointer<Float>, count: Int) {
        for (generator, gain) in zip(generators, gains) {
            generator.add(into: out, count: count, gain: gain)
        }
    }
}
