import Foundation
import FootstepDSP

/// The classifier's model file (`Resources/footstep-model.json`, written by
/// `tools/train_classifier.py`): standardisation, then gradient-boosted trees
/// (`trees`), optionally a picture network (`network`) averaged with them, a
/// softmax temperature and, optionally, the bout typer, the frame network with
/// its decision and the confidence calibration.
public struct FootstepModel: Sendable, Codable {
    /// One dense layer: `weights[out][in]`, `biases[out]`, then the activation.
    public struct Layer: Sendable, Codable {
        public var weights: [[Double]]
        public var biases: [Double]
        /// `relu` or `linear`.
        public var activation: String

        public init(weights: [[Double]], biases: [Double], activation: String) {
            self.weights = weights
            self.biases = biases
            self.activation = activation
        }
    }

    /// The picture network (`PictureNetwork`): it scores the event's picture
    /// and features as footstep or not, and moves the footstep classes'
    /// logits by `weight` × (its log-odds − the trees' log-odds of
    /// any footstep), keeping how they share a footstep between the types.
    public struct Network: Sendable, Codable {
        /// A 3×3 convolution: `weights` in `[out][in][ky][kx]` order (PyTorch's), flattened.
        public struct Convolution: Sendable, Codable {
            public var inputs: Int
            public var outputs: Int
            public var weights: [Double]
            public var biases: [Double]
        }

        /// `EventPicture.version` the network was trained on, and its shape.
        public var pictureVersion: Int
        public var bands: Int
        public var frames: Int
        /// The picture goes in as (dB − pictureShift) / pictureScale.
        public var pictureShift: Double
        public var pictureScale: Double
        public var convolutions: [Convolution]
        /// From the last convolution's channels and the standardised features to one logit.
        public var dense: [Layer]
        public var weight: Double
    }

    /// The frame step network (`FrameStepNetwork`): from the stream's
    /// picture (`FramePicture`), each 10 ms frame's probability that a step
    /// begins within 20 ms of it, and the thresholds at which that revises
    /// the event model's label (`FrameEvidence`).
    public struct FrameNetwork: Sendable, Codable {
        /// A causal 3-tap convolution over time with taps at t − 2·dilation,
        /// t − dilation and t, then ReLU (batch normalisation folded in); with
        /// `residual` its input is added to its output.
        public struct Convolution: Sendable, Codable {
            public var inputs: Int
            public var outputs: Int
            public var dilation: Int
            /// `[out][in][tap]` (PyTorch's Conv1d order), flattened.
            public var weights: [Double]
            public var biases: [Double]
            public var residual: Bool

            public init(inputs: Int, outputs: Int, dilation: Int, weights: [Double], biases: [Double], residual: Bool) {
                self.inputs = inputs
                self.outputs = outputs
                self.dilation = dilation
                self.weights = weights
                self.biases = biases
                self.residual = residual
            }
        }

        /// `FramePicture.version` the network was trained on, and its band count.
        public var pictureVersion: Int
        public var bands: Int
        /// The picture goes in as dB / pictureScale.
        public var pictureScale: Double
        /// The network's output at frame t is the probability for frame t − lookahead.
        public var lookahead: Int
        public var convolutions: [Convolution]
        /// From the last convolution's channels to one logit.
        public var output: Layer
        /// The learned trees (`FrameDecision`) that judge every detection and
        /// every onset of the network from what lies within 2 s of it. A model
        /// file must have them (`validate()`); optional here only so that a
        /// file without them gets a clear error rather than a decoding one.
        public var decision: Decision?

        /// Gradient-boosted trees (one logit: a footstep) over
        /// `FrameDecision.featureNames`, written by `tools/eval/frame_decision.py`;
        /// a candidate at or above `threshold` is a footstep.
        public struct Decision: Sendable, Codable {
            public var trees: TreeEnsemble
            public var threshold: Double
            /// The features the trees were trained on, in order: they must be
            /// `FrameDecision.featureNames`.
            public var features: [String]

            public init(trees: TreeEnsemble, threshold: Double, features: [String] = FrameDecision.featureNames) {
                self.trees = trees
                self.threshold = threshold
                self.features = features
            }
        }

        /// The longest look-ahead (hops) a model may have: events wait for it.
        public static let maximumLookahead = 50

        public init(
            pictureVersion: Int, bands: Int, pictureScale: Double, lookahead: Int, convolutions: [Convolution],
            output: Layer, decision: Decision?
        ) {
            self.pictureVersion = pictureVersion
            self.bands = bands
            self.pictureScale = pictureScale
            self.lookahead = lookahead
            self.convolutions = convolutions
            self.output = output
            self.decision = decision
        }

        /// The dilations of the networks `tools/eval/frame_network.py` trains:
        /// a first convolution, then six residual ones.
        public static let trainedDilations = [1, 1, 2, 4, 8, 16, 32]

        /// A network of the trained shape, `channels` wide, for benchmarks and
        /// tests: every weight and bias is `parameter(fanIn)`, where `fanIn`
        /// is the inputs one output of that layer sums (3 × inputs for a
        /// convolution, `channels` for the output).
        public static func trainedShape(
            channels: Int, lookahead: Int, decision: Decision? = nil, parameter: (_ fanIn: Int) -> Double
        ) -> FrameNetwork {
            let convolutions = trainedDilations.enumerated().map { index, dilation in
                let inputs = index == 0 ? FramePicture.bandCount : channels
                return Convolution(
                    inputs: inputs, outputs: channels, dilation: dilation,
                    weights: (0..<(channels * inputs * 3)).map { _ in parameter(3 * inputs) },
                    biases: (0..<channels).map { _ in parameter(3 * inputs) }, residual: index > 0)
            }
            return FrameNetwork(
                pictureVersion: FramePicture.version, bands: FramePicture.bandCount, pictureScale: 20,
                lookahead: lookahead, convolutions: convolutions,
                output: Layer(
                    weights: [(0..<channels).map { _ in parameter(channels) }], biases: [parameter(channels)],
                    activation: "linear"),
                decision: decision)
        }
    }

    public static let formatName = "footstepd-event-classifier"
    public static let supportedFormatVersion = 1
    /// The class order the classifier expects.
    public static let classNames = ["stomping", "heel_strike", "shuffling", "running", "other"]

    public var format: String
    public var formatVersion: Int
    /// `EventFeatures.version` the model was trained with.
    public var featureVersion: Int
    /// Dataset generator version, scenario count and seed.
    public var trainingDataVersion: String
    public var classes: [String]
    public var features: [String]
    public var means: [Double]
    public var scales: [Double]
    /// The tree ensemble, over the standardised features. A model file must
    /// have it (`validate()`); optional here only so that a file without it
    /// (an old network model) gets a clear error rather than a decoding one.
    public var trees: TreeEnsemble?
    /// The picture network; nil when the features alone decide.
    public var network: Network?
    public var temperature: Double
    /// Names a footstep's type from its whole bout (`BoutReviser`); files
    /// without one keep the live types.
    public var boutTyper: BoutTypeModel?
    /// The frame step network; nil leaves the event model's labels as they are.
    public var frameNetwork: FrameNetwork?
    /// What the pipeline's confidences are worth on families it never heard;
    /// nil reports them as the pipeline gives them.
    public var confidenceCalibration: ConfidenceCalibration?

    /// Loads and validates the model at `url`.
    public static func load(contentsOf url: URL) throws(ClassifierError) -> FootstepModel {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .modelUnreadable(path: url.path, reason: error.localizedDescription)
        }
        let model: FootstepModel
        do {
            model = try JSONDecoder().decode(FootstepModel.self, from: data)
        } catch {
            throw .modelInvalid(path: url.path, reason: "not a footstepd model file (\(error))")
        }
        try model.validate(path: url.path)
        return model
    }

    /// The shipped model's file name.
    public static let fileName = "footstep-model.json"

    /// Where the shipped model is looked for, in order, beside the running executable (`/proc/self/exe`):
    /// - `../share/footstepd/footstep-model.json`: installed (`/usr/bin` → `/usr/share/footstepd`, the same under
    ///   `/usr/local`);
    /// - `footstepd_FootstepClassifier.resources/Resources/footstep-model.json`: the build tree, where SwiftPM
    ///   puts the target's resources (the copied `Resources` folder) beside the products;
    /// - `/usr/share/footstepd/footstep-model.json`.
    ///
    /// Not SwiftPM's `Bundle.module`: on Linux it traps when its build-tree path is gone, so an installed
    /// daemon whose build tree was removed (or hidden by `ProtectHome=`) would die at start.
    public static var shippedLocations: [String] {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? ""
        let directory = (executable as NSString).deletingLastPathComponent
        return [
            ((directory as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("share/footstepd/\(fileName)"),
            (directory as NSString).appendingPathComponent("footstepd_FootstepClassifier.resources/Resources/\(fileName)"),
            "/usr/share/footstepd/\(fileName)",
        ]
    }

    /// The shipped model, from the first of ``shippedLocations`` that exists.
    ///
    /// - Throws: ``ClassifierError/modelUnreadable(path:reason:)`` naming every place looked at when none has it.
    public static func bundled() throws(ClassifierError) -> FootstepModel {
        let locations = shippedLocations
        guard let path = locations.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .modelUnreadable(
                path: locations[0],
                reason: "the shipped model is not installed (looked in \(locations.joined(separator: ", "))); "
                    + "reinstall footstepd (make install), or set detection.model_path")
        }
        return try load(contentsOf: URL(fileURLWithPath: path))
    }

    /// Checks the format, the feature list against `EventFeatures` and the shapes.
    public func validate(path: String = "model") throws(ClassifierError) {
        guard format == Self.formatName, formatVersion == Self.supportedFormatVersion else {
            throw .modelInvalid(
                path: path, reason: "format \(format) v\(formatVersion); this build reads \(Self.formatName) v\(Self.supportedFormatVersion)")
        }
        guard featureVersion == EventFeatures.version, features == EventFeatures.names else {
            let firstDifference = zip(features, EventFeatures.names).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            let detail = firstDifference.map { "feature \($0) is '\(features[$0])', expected '\(EventFeatures.names[$0])'" }
                ?? "\(features.count) features, expected \(EventFeatures.count)"
            throw .featureMismatch(
                path: path,
                reason: "model trained on feature set v\(featureVersion) (\(trainingDataVersion)), this build computes v\(EventFeatures.version); \(detail). Retrain with tools/train_classifier.py")
        }
        guard classes == Self.classNames else {
            throw .modelInvalid(path: path, reason: "classes \(classes), expected \(Self.classNames)")
        }
        guard means.count == features.count, scales.count == features.count, scales.allSatisfy({ $0 > 0 }) else {
            throw .modelInvalid(path: path, reason: "means/scales must have \(features.count) values (scales > 0)")
        }
        guard temperature.isFinite, temperature > 0 else {
            throw .modelInvalid(path: path, reason: "temperature must be positive")
        }
        guard let trees else {
            throw .modelInvalid(path: path, reason: "the model has no trees (its event model). Retrain with tools/train_classifier.py")
        }
        if let problem = trees.validate(features: features.count, classes: classes.count) {
            throw .modelInvalid(path: path, reason: problem)
        }
        if let network {
            try validate(network, path: path)
        }
        try boutTyper?.validate(path: path)
        try confidenceCalibration?.validate(path: path)
        if let frameNetwork {
            try validate(frameNetwork, path: path)
        }
    }

    /// Checks the frame network's picture, that its layers chain to one logit and its thresholds.
    private func validate(_ network: FrameNetwork, path: String) throws(ClassifierError) {
        guard network.pictureVersion == FramePicture.version, network.bands == FramePicture.bandCount else {
            throw .featureMismatch(
                path: path,
                reason: "frame network trained on frame picture v\(network.pictureVersion) (\(network.bands) bands), this build computes v\(FramePicture.version) (\(FramePicture.bandCount) bands). Retrain with tools/eval/frame_network.py")
        }
        guard network.pictureScale > 0, (0...FrameNetwork.maximumLookahead).contains(network.lookahead) else {
            throw .modelInvalid(
                path: path,
                reason: "the frame network's picture scale must be positive and its look-ahead 0...\(FrameNetwork.maximumLookahead) frames")
        }
        var channels = network.bands
        for (index, layer) in network.convolutions.enumerated() {
            guard layer.inputs == channels, (1...256).contains(layer.outputs), (1...128).contains(layer.dilation),
                layer.weights.count == layer.outputs * layer.inputs * 3, layer.biases.count == layer.outputs,
                !layer.residual || layer.inputs == layer.outputs
            else {
                throw .modelInvalid(
                    path: path,
                    reason: "the frame network's convolution \(index) has the wrong shape (1 to 256 channels, dilation 1 to 128, 3 taps; a residual one as many outputs as inputs)")
            }
            channels = layer.outputs
        }
        guard !network.convolutions.isEmpty, network.output.biases.count == 1, network.output.weights.count == 1,
            network.output.weights[0].count == channels
        else {
            throw .modelInvalid(path: path, reason: "the frame network needs convolutions and one output from their \(channels) channels")
        }
        guard let decision = network.decision else {
            throw .modelInvalid(
                path: path,
                reason: "the frame network has no decision (the trees that judge its onsets and the detections). Retrain with tools/eval/frame_decision.py attach")
        }
        guard decision.features == FrameDecision.featureNames else {
            throw .featureMismatch(
                path: path,
                reason: "the frame network's decision was trained on the features \(decision.features.joined(separator: ", ")); this build computes \(FrameDecision.featureNames.joined(separator: ", ")). Retrain with tools/eval/frame_decision.py")
        }
        guard (0...1).contains(decision.threshold) else {
            throw .modelInvalid(path: path, reason: "the frame network's decision threshold must be in [0, 1]")
        }
        if let problem = decision.trees.validate(features: FrameDecision.featureNames.count, classes: 1) {
            throw .modelInvalid(path: path, reason: "the frame network's decision: \(problem)")
        }
    }

    /// Checks the picture's version and shape and that the network's layers chain to one logit.
    private func validate(_ network: Network, path: String) throws(ClassifierError) {
        guard network.pictureVersion == EventPicture.version, network.bands == EventPicture.bands,
            network.frames == EventPicture.frames
        else {
            throw .featureMismatch(
                path: path,
                reason: "network trained on picture v\(network.pictureVersion) (\(network.bands) × \(network.frames)), this build computes v\(EventPicture.version) (\(EventPicture.bands) × \(EventPicture.frames)). Retrain with tools/eval/train_folds.py")
        }
        guard network.pictureScale > 0, network.weight >= 0, network.weight <= 1 else {
            throw .modelInvalid(path: path, reason: "the network's picture scale must be positive and its weight in [0, 1]")
        }
        var channels = 1
        var (height, width) = (network.bands, network.frames)
        for (index, layer) in network.convolutions.enumerated() {
            guard layer.inputs == channels, layer.outputs > 0, layer.outputs <= 16,
                layer.weights.count == layer.outputs * layer.inputs * 9,
                layer.biases.count == layer.outputs
            else {
                throw .modelInvalid(
                    path: path, reason: "the network's convolution \(index) has the wrong shape (1 to 16 channels, 3×3 weights)")
            }
            channels = layer.outputs
            (height, width) = (height / 2, width / 2)
        }
        guard !network.convolutions.isEmpty, height >= 1, width >= 1 else {
            throw .modelInvalid(path: path, reason: "the network needs 1 to 4 convolutions for a \(network.bands) × \(network.frames) picture")
        }
        var inputs = channels + features.count
        for (index, layer) in network.dense.enumerated() {
            guard layer.weights.count == layer.biases.count, layer.weights.allSatisfy({ $0.count == inputs }),
                ["relu", "linear"].contains(layer.activation)
            else {
                throw .modelInvalid(path: path, reason: "the network's dense layer \(index) has the wrong shape or activation")
            }
            inputs = layer.biases.count
        }
        guard !network.dense.isEmpty, inputs == 1 else {
            throw .modelInvalid(path: path, reason: "the network's last layer must have one output")
        }
    }
}

/// Errors of the classifier module.
public enum ClassifierError: Error, CustomStringConvertible, Equatable {
    case modelUnreadable(path: String, reason: String)
    case modelInvalid(path: String, reason: String)
    case featureMismatch(path: String, reason: String)

    public var description: String {
        switch self {
        case let .modelUnreadable(path, reason): "cannot read classifier model '\(path)': \(reason)"
        case let .modelInvalid(path, reason): "invalid classifier model '\(path)': \(reason)"
        case let .featureMismatch(path, reason): "classifier model '\(path)' does not match this build: \(reason)"
        }
    }
}
