import Foundation

/// The frame step network, run as a stream: one `FramePicture` column in per
/// 10 ms hop, one probability out, that a step began within 20 ms of the
/// frame `lookahead` hops before.
///
/// Causal dilated convolutions (`FootstepModel.FrameNetwork`): each layer
/// keeps the last `2·dilation + 1` of its inputs in a ring, and a hop's
/// output is `ReLU(W₀·x[t − 2d] + W₁·x[t − d] + W₂·x[t] + b)` (plus `x[t]`
/// for a residual layer). With dilations 1–32 the last layer sees 1.28 s.
/// The weights are kept tap- and input-major with the outputs innermost in
/// vectors of eight, so each input value is one multiply-add a vector into
/// accumulators.
///
/// All storage is allocated in `init`; `process` does not allocate.
///
/// - Note: Not thread-safe; one instance per pipeline.
public struct FrameStepNetwork: ~Copyable {
    private struct Layer {
        let inputs: Int
        let chunks: Int
        let dilation: Int
        let residual: Bool
        /// `[tap][in][chunk]`, outputs beyond `outputs` zero.
        let weights: [SIMD8<Float>]
        let biases: [SIMD8<Float>]
        /// Where this layer's input ring starts in `rings`, and how many hops it holds.
        let ringOffset: Int
        let ringLength: Int
    }

    private let layers: [Layer]
    private let outputWeights: [SIMD8<Float>]
    private let outputBias: Float
    private let inverseScale: Float
    /// How many hops after a frame its probability comes out.
    public let lookahead: Int
    /// Every layer's input ring: `ringLength` hops of `chunks · 8` values each.
    private let rings: UnsafeMutableBufferPointer<Float>
    private let accumulators: UnsafeMutableBufferPointer<SIMD8<Float>>
    /// Hops processed so far.
    public private(set) var hops = 0

    /// - Precondition: `model` has passed `FootstepModel.validate()`.
    public init(model: FootstepModel.FrameNetwork) {
        var offset = 0
        var widest = 1
        layers = model.convolutions.map { layer in
            let chunks = (layer.outputs + 7) / 8
            let inputChunks = (layer.inputs + 7) / 8
            var weights = [SIMD8<Float>](repeating: .zero, count: 3 * layer.inputs * chunks)
            var biases = [SIMD8<Float>](repeating: .zero, count: chunks)
            for o in 0..<layer.outputs {
                biases[o / 8][o % 8] = Float(layer.biases[o])
                for i in 0..<layer.inputs {
                    for tap in 0..<3 {
                        weights[(tap * layer.inputs + i) * chunks + o / 8][o % 8] =
                            Float(layer.weights[(o * layer.inputs + i) * 3 + tap])
                    }
                }
            }
            let ringLength = 2 * layer.dilation + 1
            defer { offset += ringLength * inputChunks * 8 }
            widest = max(widest, chunks)
            return Layer(
                inputs: layer.inputs, chunks: chunks, dilation: layer.dilation, residual: layer.residual,
                weights: weights, biases: biases, ringOffset: offset, ringLength: ringLength)
        }
        let last = model.output.weights[0]
        var output = [SIMD8<Float>](repeating: .zero, count: (last.count + 7) / 8)
        for (i, w) in last.enumerated() { output[i / 8][i % 8] = Float(w) }
        outputWeights = output
        outputBias = Float(model.output.biases[0])
        inverseScale = Float(1 / model.pictureScale)
        lookahead = model.lookahead
        rings = .allocate(capacity: max(1, offset))
        rings.initialize(repeating: 0)
        accumulators = .allocate(capacity: widest)
        accumulators.initialize(repeating: .zero)
    }

    deinit {
        rings.deallocate()
        accumulators.deallocate()
    }

    /// Takes one picture column; returns the probability for the frame
    /// `lookahead` hops ago (meaningless for the first `lookahead` hops).
    public mutating func process(_ column: UnsafeBufferPointer<Float>) -> Float {
        let rings = rings
        let accumulators = accumulators
        let hop = hops
        hops += 1
        // The first layer's input: the column, scaled.
        let first = layers[0]
        let firstSlot = first.ringOffset + (hop % first.ringLength) * ((first.inputs + 7) / 8 * 8)
        for i in 0..<first.inputs { rings[firstSlot + i] = column[i] * inverseScale }
        for index in layers.indices {
            let layer = layers[index]
            let stride = (layer.inputs + 7) / 8 * 8
            let chunks = layer.chunks
            for c in 0..<chunks { accumulators[c] = layer.biases[c] }
            layer.weights.withUnsafeBufferPointer { weights in
                for tap in 0..<3 {
                    // Taps at t − 2d, t − d, t; before the stream began the ring holds zeros.
                    let back = (2 - tap) * layer.dilation
                    let slot = layer.ringOffset + ((hop - back) % layer.ringLength + layer.ringLength) % layer.ringLength * stride
                    for i in 0..<layer.inputs {
                        let x = SIMD8<Float>(repeating: rings[slot + i])
                        let row = (tap * layer.inputs + i) * chunks
                        for c in 0..<chunks { accumulators[c] += x * weights[row + c] }
                    }
                }
            }
            for c in 0..<chunks { accumulators[c] = accumulators[c].replacing(with: 0, where: accumulators[c] .< 0) }
            if layer.residual {
                let slot = layer.ringOffset + (hop % layer.ringLength) * stride
                for c in 0..<chunks {
                    accumulators[c] += UnsafeRawPointer(rings.baseAddress! + slot + 8 * c).loadUnaligned(as: SIMD8<Float>.self)
                }
            }
            if index + 1 < layers.count {
                let next = layers[index + 1]
                let nextStride = (next.inputs + 7) / 8 * 8
                let nextSlot = next.ringOffset + (hop % next.ringLength) * nextStride
                for c in 0..<chunks {
                    for lane in 0..<8 where 8 * c + lane < nextStride { rings[nextSlot + 8 * c + lane] = accumulators[c][lane] }
                }
            }
        }
        var sum = SIMD8<Float>.zero
        for c in 0..<outputWeights.count { sum += accumulators[c] * outputWeights[c] }
        let logit = sum.sum() + outputBias
        return 1 / (1 + exp(-logit))
    }
}
