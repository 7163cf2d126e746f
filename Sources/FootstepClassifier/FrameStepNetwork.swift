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
/// accumulators (held in registers up to 24 channels).
///
/// All storage is allocated in `init`; `process` does not allocate.
///
/// - Note: Not thread-safe; one instance per pipeline.
public struct FrameStepNetwork: ~Copyable {
    /// One convolution: where its weights, biases and input ring are (plain
    /// integers, so a hop touches no reference counts).
    private struct Layer {
        let inputs: Int
        let chunks: Int
        let dilation: Int
        let residual: Bool
        /// Where this layer's weights (`[tap][in][chunk]`, outputs beyond
        /// `outputs` zero) and then its `chunks` biases start in `parameters`.
        let weightOffset: Int
        let biasOffset: Int
        /// Where this layer's input ring starts in `rings`, how many hops it
        /// holds, and the values a hop takes in it (`inputs` rounded up to eight).
        let ringOffset: Int
        let ringLength: Int
        let stride: Int
    }

    private let layers: UnsafeMutableBufferPointer<Layer>
    /// Every layer's weights and biases, then the output weights.
    private let parameters: UnsafeMutableBufferPointer<SIMD8<Float>>
    private let outputOffset: Int
    private let outputChunks: Int
    private let outputBias: Float
    private let inverseScale: Float
    /// How many hops after a frame its probability comes out.
    public let lookahead: Int
    /// Every layer's input ring: `ringLength` hops of `stride` values each.
    private let rings: UnsafeMutableBufferPointer<Float>
    private let accumulators: UnsafeMutableBufferPointer<SIMD8<Float>>
    /// Hops processed so far.
    public private(set) var hops = 0

    /// - Precondition: `model` has passed `FootstepModel.validate()`.
    public init(model: FootstepModel.FrameNetwork) {
        var ringOffset = 0
        var parameterCount = 0
        var widest = 1
        var shapes: [Layer] = []
        for layer in model.convolutions {
            let chunks = (layer.outputs + 7) / 8
            let stride = (layer.inputs + 7) / 8 * 8
            let ringLength = 2 * layer.dilation + 1
            let weightOffset = parameterCount
            parameterCount += 3 * layer.inputs * chunks
            shapes.append(
                Layer(
                    inputs: layer.inputs, chunks: chunks, dilation: layer.dilation, residual: layer.residual,
                    weightOffset: weightOffset, biasOffset: parameterCount, ringOffset: ringOffset,
                    ringLength: ringLength, stride: stride))
            parameterCount += chunks
            ringOffset += ringLength * stride
            widest = max(widest, chunks)
        }
        let last = model.output.weights[0]
        outputOffset = parameterCount
        outputChunks = (last.count + 7) / 8
        parameterCount += outputChunks
        parameters = .allocate(capacity: parameterCount)
        parameters.initialize(repeating: .zero)
        for (shape, layer) in zip(shapes, model.convolutions) {
            for o in 0..<layer.outputs {
                parameters[shape.biasOffset + o / 8][o % 8] = Float(layer.biases[o])
                for i in 0..<layer.inputs {
                    for tap in 0..<3 {
                        parameters[shape.weightOffset + (tap * layer.inputs + i) * shape.chunks + o / 8][o % 8] =
                            Float(layer.weights[(o * layer.inputs + i) * 3 + tap])
                    }
                }
            }
        }
        for (i, w) in last.enumerated() { parameters[outputOffset + i / 8][i % 8] = Float(w) }
        layers = .allocate(capacity: shapes.count)
        _ = layers.initialize(from: shapes)
        outputBias = Float(model.output.biases[0])
        inverseScale = Float(1 / model.pictureScale)
        lookahead = model.lookahead
        rings = .allocate(capacity: max(1, ringOffset))
        rings.initialize(repeating: 0)
        accumulators = .allocate(capacity: widest)
        accumulators.initialize(repeating: .zero)
    }

    deinit {
        layers.deallocate()
        parameters.deallocate()
        rings.deallocate()
        accumulators.deallocate()
    }

    /// Takes one picture column; returns the probability for the frame
    /// `lookahead` hops ago (meaningless for the first `lookahead` hops).
    public mutating func process(_ column: UnsafeBufferPointer<Float>) -> Float {
        let rings = rings.baseAddress!
        let parameters = parameters.baseAddress!
        let accumulators = accumulators
        let hop = hops
        hops += 1
        // The first layer's input: the column, scaled.
        let first = layers[0]
        let firstSlot = first.ringOffset + (hop % first.ringLength) * first.stride
        for i in 0..<first.inputs { rings[firstSlot + i] = column[i] * inverseScale }
        for index in 0..<layers.count {
            let layer = layers[index]
            let chunks = layer.chunks
            let inputs = layer.inputs
            for c in 0..<chunks { accumulators[c] = parameters[layer.biasOffset + c] }
            for tap in 0..<3 {
                // Taps at t − 2d, t − d, t; before the stream began the ring holds zeros.
                let back = (2 - tap) * layer.dilation
                let slot = ((hop - back) % layer.ringLength + layer.ringLength) % layer.ringLength
                let x = rings + layer.ringOffset + slot * layer.stride
                let w = parameters + layer.weightOffset + tap * inputs * chunks
                Self.accumulate(x: x, inputs: inputs, weights: w, chunks: chunks, into: accumulators)
            }
            for c in 0..<chunks { accumulators[c] = accumulators[c].replacing(with: 0, where: accumulators[c] .< 0) }
            if layer.residual {
                let own = UnsafeRawPointer(rings + layer.ringOffset + (hop % layer.ringLength) * layer.stride)
                for c in 0..<chunks {
                    accumulators[c] += own.loadUnaligned(fromByteOffset: 32 * c, as: SIMD8<Float>.self)
                }
            }
            if index + 1 < layers.count {
                let next = layers[index + 1]
                let target = UnsafeMutableRawPointer(rings + next.ringOffset + (hop % next.ringLength) * next.stride)
                for c in 0..<min(chunks, next.stride / 8) {
                    target.storeBytes(of: accumulators[c], toByteOffset: 32 * c, as: SIMD8<Float>.self)
                }
            }
        }
        var sum = SIMD8<Float>.zero
        for c in 0..<outputChunks { sum += accumulators[c] * parameters[outputOffset + c] }
        let logit = sum.sum() + outputBias
        return 1 / (1 + exp(-logit))
    }

    /// `accumulators[c] += Σᵢ x[i] · weights[i · chunks + c]`, with the
    /// accumulators in registers for networks up to 24 channels wide.
    @inline(__always)
    private static func accumulate(
        x: UnsafeMutablePointer<Float>, inputs: Int, weights: UnsafeMutablePointer<SIMD8<Float>>, chunks: Int,
        into accumulators: UnsafeMutableBufferPointer<SIMD8<Float>>
    ) {
        switch chunks {
        case 1:
            var a0 = accumulators[0]
            for i in 0..<inputs { a0 += SIMD8(repeating: x[i]) * weights[i] }
            accumulators[0] = a0
        case 2:
            var a0 = accumulators[0], a1 = accumulators[1]
            for i in 0..<inputs {
                let v = SIMD8(repeating: x[i])
                a0 += v * weights[2 * i]
                a1 += v * weights[2 * i + 1]
            }
            accumulators[0] = a0
            accumulators[1] = a1
        case 3:
            var a0 = accumulators[0], a1 = accumulators[1], a2 = accumulators[2]
            for i in 0..<inputs {
                let v = SIMD8(repeating: x[i])
                a0 += v * weights[3 * i]
                a1 += v * weights[3 * i + 1]
                a2 += v * weights[3 * i + 2]
            }
            accumulators[0] = a0
            accumulators[1] = a1
            accumulators[2] = a2
        default:
            for i in 0..<inputs {
                let v = SIMD8(repeating: x[i])
                let row = weights + i * chunks
                for c in 0..<chunks { accumulators[c] += v * row[c] }
            }
        }
    }
}
