import FootstepClassifier
import FootstepDSP
import Foundation
import Testing

/// The frame step network run as a stream against the NumPy forward pass
/// the trainer checks against PyTorch (the fixture `frame_network.py
/// fixture` writes) and against its convolutions written out, and the
/// checks that keep a mismatched network out.
@Suite struct FrameStepNetworkTests {
    struct Fixture: Decodable {
        var network: FootstepModel.FrameNetwork
        var picture: [Float]
        var probabilities: [Double]
    }

    static func fixture() throws -> Fixture {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/frame-network.json")
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    @Test func theStreamGivesTheWholeClipsProbabilitiesLookaheadHopsLate() throws {
        let fixture = try Self.fixture()
        var network = FrameStepNetwork(model: fixture.network)
        let bands = FramePicture.bandCount
        let frames = fixture.picture.count / bands
        let lookahead = fixture.network.lookahead
        #expect(network.lookahead == lookahead)
        var compared = 0
        for hop in 0..<frames {
            let probability = fixture.picture[(hop * bands)..<((hop + 1) * bands)].withUnsafeBufferPointer {
                network.process($0)
            }
            guard hop >= lookahead else { continue }
            let expected = fixture.probabilities[hop - lookahead]
            #expect(abs(Double(probability) - expected) < 2e-5, "frame \(hop - lookahead): Swift \(probability), NumPy \(expected)")
            compared += 1
        }
        #expect(compared == frames - lookahead)
        #expect(network.hops == frames)
    }

    /// A random network `channels` wide of the trainer's shape, each
    /// parameter uniform in ±½/√fan-in (so the residual sums stay moderate).
    static func randomNetwork(channels: Int, seed: UInt64) -> FootstepModel.FrameNetwork {
        var state = seed
        return .trainedShape(channels: channels, lookahead: 0) { fanIn in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) / Double(1 << 53) - 0.5) / Double(fanIn).squareRoot()
        }
    }

    /// The network's probabilities for every frame of `picture`, layer by
    /// layer over the whole picture in plain loops (zeros before the start).
    static func reference(_ model: FootstepModel.FrameNetwork, picture: [[Double]]) -> [Double] {
        var x = picture.map { $0.map { $0 / model.pictureScale } }
        for layer in model.convolutions {
            let frames = x.count
            var y = [[Double]](repeating: [Double](repeating: 0, count: layer.outputs), count: frames)
            for t in 0..<frames {
                for o in 0..<layer.outputs {
                    var sum = layer.biases[o]
                    for tap in 0..<3 {
                        let source = t - (2 - tap) * layer.dilation
                        guard source >= 0 else { continue }
                        for i in 0..<layer.inputs { sum += layer.weights[(o * layer.inputs + i) * 3 + tap] * x[source][i] }
                    }
                    y[t][o] = max(0, sum) + (layer.residual ? x[t][o] : 0)
                }
            }
            x = y
        }
        return x.map { features in
            let logit = zip(features, model.output.weights[0]).reduce(model.output.biases[0]) { $0 + $1.0 * $1.1 }
            return 1 / (1 + exp(-logit))
        }
    }

    /// Every width the streaming code has its own path for (one, two and
    /// three vectors of accumulators, more, and a width not a multiple of eight).
    @Test(arguments: [8, 16, 20, 24, 48])
    func theStreamMatchesTheConvolutionsWrittenOut(channels: Int) throws {
        let model = Self.randomNetwork(channels: channels, seed: UInt64(channels))
        var network = FrameStepNetwork(model: model)
        var state: UInt64 = 99
        let picture = (0..<200).map { _ in
            (0..<FramePicture.bandCount).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Double(state >> 40) / Double(1 << 24) * 40 - 5
            }
        }
        let expected = Self.reference(model, picture: picture)
        for (frame, column) in picture.enumerated() {
            let probability = column.map(Float.init).withUnsafeBufferPointer { network.process($0) }
            #expect(abs(Double(probability) - expected[frame]) < 1e-4, "\(channels) channels, frame \(frame)")
        }
        // The probabilities vary: the comparison is not of constants.
        #expect(Set(expected.map { ($0 * 10_000).rounded() }).count > 50)
    }

    @Test func aMismatchedFrameNetworkIsRefusedWithTheReason() throws {
        var fixture = try Self.fixture()
        var model = try FootstepModel.bundled()
        // The fixture is a network alone; a model's network comes with its decision.
        let decision = model.frameNetwork?.decision
        fixture.network.decision = decision

        model.frameNetwork = fixture.network
        model.frameNetwork?.pictureVersion = FramePicture.version + 1
        #expect {
            try model.validate()
        } throws: { error in
            guard case let .featureMismatch(_, reason) = error as? ClassifierError else { return false }
            return reason.contains("frame picture v\(FramePicture.version + 1)") && reason.contains("frame_network.py")
        }

        model.frameNetwork = fixture.network
        model.frameNetwork?.convolutions[2].weights.removeLast()
        #expect {
            try model.validate()
        } throws: { error in
            guard case let .modelInvalid(_, reason) = error as? ClassifierError else { return false }
            return reason.contains("convolution 2")
        }

        model.frameNetwork = fixture.network
        model.frameNetwork?.lookahead = FootstepModel.FrameNetwork.maximumLookahead + 1
        #expect(throws: ClassifierError.self) { try model.validate() }

        model.frameNetwork = fixture.network
        model.frameNetwork?.output.weights = [[1, 2]]
        #expect(throws: ClassifierError.self) { try model.validate() }

        model.frameNetwork = fixture.network
        model.frameNetwork?.decision = nil
        #expect {
            try model.validate()
        } throws: { error in
            guard case let .modelInvalid(_, reason) = error as? ClassifierError else { return false }
            return reason.contains("no decision") && reason.contains("frame_decision.py")
        }

        model.frameNetwork = fixture.network
        try model.validate()
    }

    /// The network's highest probability within `FrameDecision.beatReach` hops of each hop of
    /// `peaks` (hop: probability) over `hops` hops, 0 outside them.
    private func beatPeak(_ peaks: [Int: Float], hops: Int) -> (Int) -> Float {
        { hop in
            guard (0..<hops).contains(hop) else { return 0 }
            return (hop - FrameDecision.beatReach...hop + FrameDecision.beatReach).map { peaks[$0] ?? 0 }.max() ?? 0
        }
    }

    @Test func theNetworksBeatIsItsStrongestRegularTrainThroughTheCandidate() {
        // tools/eval/test_frame_decision.py NetworkBeatTests: the same cases.
        let walk = beatPeak([300: 0.9, 361: 0.9, 420: 0.9, 478: 0.9, 540: 0.9, 800: 0.9], hops: 1000)
        // Within a walk at 60 hops (±2 each: within the reach), all four neighbours are on its beat …
        #expect(abs(FrameDecision.networkBeat(at: 420, horizon: 200, peak: walk) - 0.9) < 1e-6)
        // … at its end, two of the four; an impact alone has none.
        #expect(abs(FrameDecision.networkBeat(at: 540, horizon: 200, peak: walk) - 0.6) < 1e-6)
        #expect(FrameDecision.networkBeat(at: 800, horizon: 200, peak: walk) == 0)
        // Two steps after, at 115 hops: the second is 230 hops on, further than is heard when judged.
        let ahead = beatPeak([100: 0.9, 215: 0.9, 330: 0.9], hops: 1000)
        #expect(abs(FrameDecision.networkBeat(at: 100, horizon: 200, peak: ahead) - 0.3) < 1e-6)
        #expect(abs(FrameDecision.networkBeat(at: 100, horizon: 230, peak: ahead) - 0.6) < 1e-6)
        // A knock-knock is one neighbour; a buzz closer than a gait's interval is none.
        let knocks = beatPeak([500: 0.9, 530: 0.9], hops: 1000)
        #expect(abs(FrameDecision.networkBeat(at: 500, horizon: 200, peak: knocks) - 0.3) < 1e-6)
        let buzz = beatPeak([497: 0.9, 503: 0.9], hops: 1000)
        #expect(FrameDecision.networkBeat(at: 500, horizon: 200, peak: buzz) == 0)
    }
}
