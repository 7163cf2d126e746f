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
/// All buffers are allocated in `init`; `logit` does not allocate. The
/// convolutions' weights are kept input-major with the output channels
/// innermost, in vectors of eight (`[in][ky][kx][out / 8]`, the last vector
/// padded with zeros), so each input value is one multiply-add a vector
/// into accumulators that stay in registers.
///
/// - Note: Not thread-safe; one instance per pipeline.
struct PictureNetwork {
    private struct Convolution {
        let inputs: Int
        let outputs: Int
        /// Vectors of eight outputs: `(outputs + 7) / 8`.
        let lanes: Int
        /// `[in][ky][kx][lane]`.
        let weights: [SIMD8<Float>]
        let biases: [SIMD8<Float>]
    }

    private struct Dense {
        let inputs: Int
        let outputs: Int
        /// `[out][in]`.
        let weights: [Float]
        let biases: [Float]
        let relu: Bool
    }

    private let convolutions: [Convolution]
    private let dense: [Dense]
    private let pictureShift: Float
    private let pictureScale: Float
    /// One block's input, its convolution before pooling, and the dense layers' activations.
    private var input: [Float]
    private var convolved: [Float]
    private var activations: [[Float]]

    /// - Precondition: `model` has passed `FootstepModel.validate()`.
    init(model: FootstepModel.Network, features: Int) {
        convolutions = model.convolutions.map { layer in
            let lanes = (layer.outputs + 7) / 8
            var weights = [SIMD8<Float>](repeating: .zero, count: layer.inputs * 9 * lanes)
            var biases = [SIMD8<Float>](repeating: .zero, count: lanes)
            for o in 0..<layer.outputs {
                biases[o / 8][o % 8] = Float(layer.biases[o])
                for i in 0..<layer.inputs {
                    for k in 0..<9 {
                        weights[(i * 9 + k) * lanes + o / 8][o % 8] = Float(layer.weights[(o * layer.inputs + i) * 9 + k])
                    }
                }
            }
            return Convolution(inputs: layer.inputs, outputs: layer.outputs, lanes: lanes, weights: weights, biases: biases)
        }
        dense = model.dense.map { layer in
            Dense(
                inputs: layer.weights.first?.count ?? 0, outputs: layer.biases.count,
                weights: layer.weights.flatMap { $0.map(Float.init) }, biases: layer.biases.map(Float.init),
                relu: layer.activation == "relu")
        }
        pictureShift = Float(model.pictureShift)
        pictureScale = Float(model.pictureScale)
        let widest = convolutions.map(\.outputs).max() ?? 1
        input = [Float](repeating: 0, count: max(1, convolutions.map(\.inputs).max() ?? 1) * EventPicture.count)
        convolved = [Float](repeating: 0, count: widest * EventPicture.count)
        let first = (convolutions.last?.outputs ?? 0) + features
        activations = [[Float](repeating: 0, count: first)] + dense.map { [Float](repeating: 0, count: $0.outputs) }
    }

    /// The footstep log-odds of `picture` (`EventPicture.values`) and the standardised `features`.
    mutating func logit(picture: [Float], features: [Double]) -> Double {
        var height = EventPicture.bands
        var width = EventPicture.frames
        for i in 0..<picture.count { input[i] = (picture[i] - pictureShift) / pictureScale }
        for layer in convolutions {
            convolve(layer, height: height, width: width)
            pool(channels: layer.outputs, height: height, width: width)
            height /= 2
            width /= 2
        }
        // The last block's channels averaged over what is left of the picture, then the features.
        let channels = convolutions.last?.outputs ?? 0
        let cells = Float(height * width)
        for c in 0..<channels {
            var sum: Float = 0
            for k in 0..<(height * width) { sum += input[c * height * width + k] }
            activations[0][c] = sum / cells
        }
        for i in 0..<features.count { activations[0][channels + i] = Float(features[i]) }
        for (l, layer) in dense.enumerated() {
            for o in 0..<layer.outputs {
                var sum = layer.biases[o]
                let row = o * layer.inputs
                for i in 0..<layer.inputs { sum += layer.weights[row + i] * activations[l][i] }
                activations[l + 1][o] = layer.relu ? max(0, sum) : sum
            }
        }
        return Double(activations[dense.count][0])
    }

    /// 3×3 convolution of `input` (channels × height × width, zero padding) into `convolved`, then ReLU.
    /// The outputs of one position stay in two registers of eight (`FootstepModel` allows at most 16 channels).
    private mutating func convolve(_ layer: Convolution, height: Int, width: Int) {
        let (inputs, outputs, twoLanes) = (layer.inputs, layer.outputs, layer.lanes > 1)
        input.withUnsafeBufferPointer { source in
        convolved.withUnsafeMutableBufferPointer { target in
        layer.weights.withUnsafeBufferPointer { w in
            for y in 0..<height {
                for x in 0..<width {
                    var low = layer.biases[0]
                    var high = twoLanes ? layer.biases[1] : .zero
                    for i in 0..<inputs {
                        for ky in 0..<3 {
                            let yy = y + ky - 1
                            guard yy >= 0, yy < height else { continue }
                            for kx in 0..<3 {
                                let xx = x + kx - 1
                                guard xx >= 0, xx < width else { continue }
                                // After a ReLU most inputs are zero, and a zero adds nothing.
                                let value = source[(i * height + yy) * width + xx]
                                guard value != 0 else { continue }
                                let base = ((i * 3 + ky) * 3 + kx) * layer.lanes
                                low += w[base] * value
                                if twoLanes { high += w[base + 1] * value }
                            }
                        }
                    }
                    for o in 0..<min(8, outputs) { target[(o * height + y) * width + x] = max(0, low[o]) }
                    for o in 8..<max(8, outputs) { target[(o * height + y) * width + x] = max(0, high[o - 8]) }
                }
            }
        }
        }
        }
    }

    /// 2×2 max pooling of `convolved` (channels × height × width; an odd last row or column is dropped) into `input`.
    private mutating func pool(channels: Int, height: Int, width: Int) {
        let (rows, columns) = (height / 2, width / 2)
        for c in 0..<channels {
            for y in 0..<rows {
                for x in 0..<columns {
                    let top = (c * height + 2 * y) * width + 2 * x
                    let bottom = top + width
                    input[(c * rows + y) * columns + x] =
                        max(max(convolved[top], convolved[top + 1]), max(convolved[bottom], convolved[bottom + 1]))
                }
            }
        }
    }
}
