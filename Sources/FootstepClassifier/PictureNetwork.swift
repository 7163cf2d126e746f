/// A small convolutional network that scores an impact's picture
/// (`EventPicture`) and its standardised features as footstep or not: the
/// log-odds of any footstep against `other`.
///
/// The picture, scaled as `(dB − pictureShift) / pictureScale`, passes
/// through blocks of 3×3 convolution (zero padding), ReLU and 2×2 max
/// pooling (batch normalisation is folded into the weights when the model is
/// exported); the last block's channels are averaged over the picture and,
/// with the features, go through dense layers to one logit.
///
/// All buffers are allocated in `init`; `logit` does not allocate. Each
/// block's input is kept with a border of zeros (the convolution's padding),
/// so the convolution's inner loop has no bounds to test. The convolutions'
/// weights are kept input-major with the output channels innermost, in two
/// vectors of eight (`[in][ky][kx][2]`, unused outputs zero), so each input
/// value is one multiply-add a vector (one vector for a layer of up to eight
/// channels, two above) into accumulators that stay in registers.
///
/// - Note: Not thread-safe; one instance per pipeline.
struct PictureNetwork {
    private struct Convolution {
        let inputs: Int
        let outputs: Int
        /// `[in][ky][kx][2]`: outputs 0–7, then 8–15 (zero beyond `outputs`).
        let weights: [SIMD8<Float>]
        /// Outputs 0–7 and 8–15.
        let biases: (SIMD8<Float>, SIMD8<Float>)
    }

    private struct Dense {
        let inputs: Int
        let outputs: Int
        /// `[out][in]`.
        let weights: [Float]
        let biases: [Float]
        let relu: Bool
        /// Where the layer's inputs start in `activations`; its outputs follow them.
        let offset: Int
    }

    private let convolutions: [Convolution]
    private let dense: [Dense]
    private let pictureShift: Float
    private let pictureScale: Float
    /// One block's input, channels × (height + 2) × (width + 2) with a zero border.
    private var input: [Float]
    /// Its convolution before pooling, channels × height × width.
    private var convolved: [Float]
    /// The dense layers' inputs and outputs, one after another.
    private var activations: [Float]

    /// - Precondition: `model` has passed `FootstepModel.validate()` (at most 16 channels).
    init(model: FootstepModel.Network, features: Int) {
        convolutions = model.convolutions.map { layer in
            var weights = [SIMD8<Float>](repeating: .zero, count: layer.inputs * 9 * 2)
            var biases = (SIMD8<Float>.zero, SIMD8<Float>.zero)
            for o in 0..<layer.outputs {
                if o < 8 { biases.0[o] = Float(layer.biases[o]) } else { biases.1[o - 8] = Float(layer.biases[o]) }
                for i in 0..<layer.inputs {
                    for k in 0..<9 {
                        weights[(i * 9 + k) * 2 + o / 8][o % 8] = Float(layer.weights[(o * layer.inputs + i) * 9 + k])
                    }
                }
            }
            return Convolution(inputs: layer.inputs, outputs: layer.outputs, weights: weights, biases: biases)
        }
        var offset = 0
        dense = model.dense.map { layer in
            let inputs = layer.weights.first?.count ?? 0
            defer { offset += inputs }
            return Dense(
                inputs: inputs, outputs: layer.biases.count,
                weights: layer.weights.flatMap { $0.map(Float.init) }, biases: layer.biases.map(Float.init),
                relu: layer.activation == "relu", offset: offset)
        }
        pictureShift = Float(model.pictureShift)
        pictureScale = Float(model.pictureScale)
        let widest = max(1, convolutions.map { max($0.inputs, $0.outputs) }.max() ?? 1)
        input = [Float](repeating: 0, count: widest * (EventPicture.bands + 2) * (EventPicture.frames + 2))
        convolved = [Float](repeating: 0, count: widest * EventPicture.count)
        let first = (convolutions.last?.outputs ?? 0) + features
        activations = [Float](repeating: 0, count: first + dense.map(\.outputs).reduce(0, +))
    }

    /// The footstep log-odds of `picture` (`EventPicture.values`) and the standardised `features`.
    mutating func logit(picture: [Float], features: [Double]) -> Double {
        var height = EventPicture.bands
        var width = EventPicture.frames
        let (shift, scale) = (pictureShift, pictureScale)
        input.withUnsafeMutableBufferPointer { padded in
            for i in 0..<((height + 2) * (width + 2)) { padded[i] = 0 }
            for y in 0..<height {
                for x in 0..<width { padded[(y + 1) * (width + 2) + x + 1] = (picture[y * width + x] - shift) / scale }
            }
        }
        for layer in convolutions {
            convolve(layer, height: height, width: width)
            pool(channels: layer.outputs, height: height, width: width)
            height /= 2
            width /= 2
        }
        let channels = convolutions.last?.outputs ?? 0
        let cells = Float(height * width)
        let (rows, columns) = (height, width)
        let layers = dense
        return input.withUnsafeBufferPointer { input in
            activations.withUnsafeMutableBufferPointer { activations in
                // The last block's channels averaged over what is left of the picture, then the features.
                for c in 0..<channels {
                    var sum: Float = 0
                    for y in 0..<rows {
                        let row = (c * (rows + 2) + y + 1) * (columns + 2) + 1
                        for x in 0..<columns { sum += input[row + x] }
                    }
                    activations[c] = sum / cells
                }
                for i in 0..<features.count { activations[channels + i] = Float(features[i]) }
                for layer in layers {
                    let outputs = layer.offset + layer.inputs
                    layer.weights.withUnsafeBufferPointer { weights in
                        for o in 0..<layer.outputs {
                            var sum = layer.biases[o]
                            let row = o &* layer.inputs
                            for i in 0..<layer.inputs { sum += weights[row &+ i] * activations[layer.offset &+ i] }
                            activations[outputs + o] = layer.relu ? max(0, sum) : sum
                        }
                    }
                }
                return Double(activations[activations.count - 1])
            }
        }
    }

    /// 3×3 convolution of `input` (channels × (height + 2) × (width + 2), its border zero) into
    /// `convolved` (channels × height × width), then ReLU. The outputs of one position stay
    /// in registers of eight: one for a layer of up to eight channels, two above.
    private mutating func convolve(_ layer: Convolution, height: Int, width: Int) {
        if layer.outputs > 8 {
            convolve(layer, height: height, width: width, twoLanes: true)
        } else {
            convolve(layer, height: height, width: width, twoLanes: false)
        }
    }

    @inline(__always)
    private mutating func convolve(_ layer: Convolution, height: Int, width: Int, twoLanes: Bool) {
        let (inputs, outputs) = (layer.inputs, layer.outputs)
        let stride = width &+ 2
        let plane = (height &+ 2) &* stride
        let cells = height &* width
        input.withUnsafeBufferPointer { source in
        convolved.withUnsafeMutableBufferPointer { target in
        layer.weights.withUnsafeBufferPointer { w in
            let (source, w) = (source.baseAddress!, w.baseAddress!)
            for y in 0..<height {
                for x in 0..<width {
                    var (low, high) = layer.biases
                    for i in 0..<inputs {
                        // The 3×3 neighbourhood of (y, x) starts at (y, x) in the padded input.
                        let top = source + (i &* plane &+ y &* stride &+ x)
                        let taps = w + i &* 18
                        for ky in 0..<3 {
                            let row = top + ky &* stride
                            let k = taps + ky &* 6
                            let (a, b, c) = (row[0], row[1], row[2])
                            low += k[0] * a + k[2] * b + k[4] * c
                            if twoLanes { high += k[1] * a + k[3] * b + k[5] * c }
                        }
                    }
                    let cell = y &* width &+ x
                    for o in 0..<min(8, outputs) { target[o &* cells &+ cell] = max(0, low[o]) }
                    if twoLanes {
                        for o in 8..<outputs { target[o &* cells &+ cell] = max(0, high[o &- 8]) }
                    }
                }
            }
        }
        }
        }
    }

    /// 2×2 max pooling of `convolved` (channels × height × width; an odd last row or column is
    /// dropped) into `input`, with a zero border for the next convolution.
    private mutating func pool(channels: Int, height: Int, width: Int) {
        let (rows, columns) = (height / 2, width / 2)
        let stride = columns + 2
        convolved.withUnsafeBufferPointer { convolved in
        input.withUnsafeMutableBufferPointer { input in
            for i in 0..<(channels * (rows + 2) * stride) { input[i] = 0 }
            for c in 0..<channels {
                for y in 0..<rows {
                    for x in 0..<columns {
                        let top = (c * height + 2 * y) * width + 2 * x
                        let bottom = top + width
                        input[(c * (rows + 2) + y + 1) * stride + x + 1] =
                            max(max(convolved[top], convolved[top + 1]), max(convolved[bottom], convolved[bottom + 1]))
                    }
                }
            }
        }
        }
    }
}
