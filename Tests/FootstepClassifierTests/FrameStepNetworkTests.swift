import FootstepClassifier
import FootstepDSP
import Foundation
import Testing

/// The frame step network run as a stream against the NumPy forward pass
/// the trainer checks against PyTorch (the fixture `frame_network.py
/// fixture` writes), and the checks that keep a mismatched network out.
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

    @Test func aMismatchedFrameNetworkIsRefusedWithTheReason() throws {
        let fixture = try Self.fixture()
        var model = try FootstepModel.bundled()

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
        try model.validate()
    }
}
