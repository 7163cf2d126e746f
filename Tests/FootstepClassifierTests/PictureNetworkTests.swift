@testable import FootstepClassifier
import FootstepCore
import Foundation
import Testing

/// The event's picture and the picture network: the network against
/// PyTorch's own output (the fixture `picture_network.py --fixture` writes),
/// how its log-odds move the model's, and the checks that keep a mismatched
/// network out.
@Suite struct PictureNetworkTests {
    struct Fixture: Decodable {
        struct Case: Decodable {
            var picture: [Float]
            var features: [Double]
            var logit: Double
        }

        var network: FootstepModel.Network
        var cases: [Case]
    }

    static func fixture() throws -> Fixture {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/picture-network.json")
        return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }

    @Test func theNetworkGivesPyTorchsLogits() throws {
        let fixture = try Self.fixture()
        var network = PictureNetwork(model: fixture.network, features: EventFeatures.count)
        for item in fixture.cases {
            let logit = network.logit(picture: item.picture, features: item.features)
            #expect(abs(logit - item.logit) < 1e-4 * max(1, abs(item.logit)), "Swift \(logit), PyTorch \(item.logit)")
        }
        // The same again: nothing carries over from one event to the next.
        let first = fixture.cases[0]
        #expect(abs(network.logit(picture: first.picture, features: first.features) - first.logit) < 1e-4 * max(1, abs(first.logit)))
    }

    @Test func theNetworkMovesTheFootstepLogitsByHalfItsDisagreement() throws {
        let fixture = try Self.fixture()
        var model = try TreeEnsembleTests.model([TreeEnsembleTests.stump()], baseline: [0, 0.5, -0.5, 0, 0])
        model.network = fixture.network
        try model.validate()
        var classifier = try FootstepModelClassifier(model: model)
        var standardised = fixture.cases[1].features
        standardised[0] = -1  // the stump gives `other` 2
        let features = (0..<standardised.count).map { model.means[$0] + standardised[$0] * model.scales[$0] }
        var network = PictureNetwork(model: fixture.network, features: EventFeatures.count)
        let networkOdds = network.logit(picture: fixture.cases[1].picture, features: standardised)
        var logits = [0.0, 0.5, -0.5, 0, 2]
        let modelOdds = log(logits[0..<4].map(exp).reduce(0, +)) - logits[4]
        for k in 0..<4 { logits[k] += 0.5 * (networkOdds - modelOdds) }
        _ = classifier.predict(features: features, picture: fixture.cases[1].picture, intensity: .medium)
        let total = logits.map(exp).reduce(0, +)
        for k in 0..<5 {
            #expect(abs(classifier.probabilities[k] - exp(logits[k]) / total) < 1e-5)
        }
        // The types keep their shares of a footstep.
        #expect(abs(classifier.probabilities[1] / classifier.probabilities[0] - exp(0.5)) < 1e-9)
        // Without a picture the model alone decides.
        _ = classifier.predict(features: features, intensity: .medium)
        let alone = [0.0, 0.5, -0.5, 0, 2].map(exp)
        #expect(abs(classifier.probabilities[4] - alone[4] / alone.reduce(0, +)) < 1e-12)
    }

    @Test func aMismatchedNetworkIsAClearError() throws {
        let fixture = try Self.fixture()
        var model = try FootstepModel.bundled()
        model.network = fixture.network
        model.network?.pictureVersion = EventPicture.version + 1
        #expect(throws: ClassifierError.self) { try model.validate() }
        do {
            try model.validate()
        } catch {
            #expect(error.description.contains("picture v\(EventPicture.version + 1)"), "\(error)")
        }
        model.network = fixture.network
        model.network?.convolutions[1].weights.removeLast()
        #expect(throws: ClassifierError.modelInvalid(path: "model", reason: "the network's convolution 1 has the wrong shape (1 to 16 channels, 3×3 weights)")) {
            try model.validate()
        }
        var twoOutputs = fixture.network
        twoOutputs.dense[1].biases.append(0)
        twoOutputs.dense[1].weights.append(twoOutputs.dense[1].weights[0])
        model.network = twoOutputs
        #expect(throws: ClassifierError.modelInvalid(path: "model", reason: "the network's last layer must have one output")) {
            try model.validate()
        }
        model.network = fixture.network
        model.network?.weight = 2
        #expect(throws: ClassifierError.self) { try model.validate() }
    }

    /// A segment as the pipeline cuts it: 50 ms before the onset, 500 ms after, at 16 kHz.
    static func segment(_ sample: (Int) -> Float) -> [Float] {
        (0..<8800).map(sample)
    }

    @Test func aToneFillsItsOwnBandAndTheLevelDoesNotMatter() {
        var picture = EventPicture()
        let tone = Self.segment { Float(sin(2 * Double.pi * 1000 * Double($0) / 16000)) * 0.1 }
        tone.withUnsafeBufferPointer { picture.compute(segment: $0, sampleRate: 16000) }
        let quiet = picture.values
        #expect(quiet.max() == 0)
        #expect(quiet.min()! >= EventPicture.floorDB)
        let loudestBand = (0..<EventPicture.bands).max { a, b in quiet[a * EventPicture.frames] < quiet[b * EventPicture.frames] }!
        let (first, weights) = EventPicture.melFilters(size: 512, rate: 16000)
        let peak = first[loudestBand] + weights[loudestBand].indices.max { weights[loudestBand][$0] < weights[loudestBand][$1] }!
        #expect(abs(Double(peak) * 16000 / 512 - 1000) < 200, "the loudest band peaks at \(Double(peak) * 31.25) Hz")
        let loud = tone.map { $0 * 30 }
        loud.withUnsafeBufferPointer { picture.compute(segment: $0, sampleRate: 16000) }
        for i in 0..<EventPicture.count { #expect(abs(picture.values[i] - quiet[i]) < 0.01) }
    }

    @Test func anImpactAtTheOnsetStartsThePicture() {
        var picture = EventPicture()
        // Silence, then a decaying thud at the onset (800 samples in).
        let thud = Self.segment { n in
            n < 800 ? 0 : Float(exp(-Double(n - 800) / 800) * sin(2 * Double.pi * 80 * Double(n - 800) / 16000))
        }
        thud.withUnsafeBufferPointer { picture.compute(segment: $0, sampleRate: 16000) }
        let frameLevel = { (frame: Int) in (0..<EventPicture.bands).map { picture.values[$0 * EventPicture.frames + frame] }.max()! }
        #expect(frameLevel(0) == EventPicture.floorDB, "the frame before the onset is silent")
        #expect(frameLevel(2) > -3, "the frame over the onset is the loudest")
        #expect(frameLevel(20) < frameLevel(3), "the thud dies away")
        // A non-finite sample leaves the frames it reaches at the floor, never NaN.
        var broken = thud
        broken[4000] = .nan
        broken.withUnsafeBufferPointer { picture.compute(segment: $0, sampleRate: 16000) }
        #expect(picture.values.allSatisfy { $0.isFinite && $0 >= EventPicture.floorDB && $0 <= 0 })
        #expect(frameLevel(2) == 0)
        #expect(frameLevel(12) == EventPicture.floorDB, "the frame over the NaN")
        // Too short a segment leaves the frames it cannot fill at the floor.
        let short = Array(thud[0..<2000])
        short.withUnsafeBufferPointer { picture.compute(segment: $0, sampleRate: 16000) }
        #expect(frameLevel(24) == EventPicture.floorDB)
        #expect(frameLevel(2) == 0)
    }
}
