import FootstepClassifier
import FootstepCore
import FootstepDSP
import Foundation
import Testing

@Suite struct ModelContractTests {
    /// A small deterministic generator for the generated inputs.
    struct Generator {
        var state: UInt64
        mutating func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        mutating func normal() -> Double {
            (-2 * log(max(1e-12, unit()))).squareRoot() * cos(2 * .pi * unit())
        }
    }

    @Test func bundledModelLoadsAndMatchesTheFeatureSet() throws {
        let model = try FootstepModel.bundled()
        #expect(model.features == EventFeatures.names)
        #expect(model.classes == FootstepModel.classNames)
        #expect(model.temperature > 0)
    }

    @Test func generatedFeatureVectorsGiveValidClassifications() throws {
        let model = try FootstepModel.bundled()
        var classifier = try FootstepModelClassifier(model: model)
        var generator = Generator(state: 42)
        var types: Set<FootstepType> = []
        for _ in 0..<2000 {
            // Around the training distribution, and well outside it.
            let spread = generator.unit() < 0.5 ? 1.0 : 6.0
            let features = (0..<EventFeatures.count).map { model.means[$0] + spread * model.scales[$0] * generator.normal() }
            let result = classifier.predict(features: features, intensity: .medium)
            try checkContract(result, probabilities: classifier.probabilities)
            types.insert(result.type)
        }
        #expect(types.count >= 3, "the generated inputs reach several types: \(types)")
        // Non-finite features do not poison the output.
        var broken = model.means
        broken[0] = .nan
        broken[1] = .infinity
        try checkContract(classifier.predict(features: broken, intensity: .low), probabilities: classifier.probabilities)
    }

    @Test func decisionRuleOnProbabilities() {
        let confident = FootstepModelClassifier.decide([0.7, 0.1, 0.1, 0.05, 0.05], intensity: .high)
        #expect(confident.kind == .footstep && confident.type == .stomping && confident.confidence == 0.7)
        #expect(abs(confident.footstepProbability - 0.95) < 1e-12)
        let other = FootstepModelClassifier.decide([0.1, 0.1, 0.1, 0.1, 0.6], intensity: .low)
        #expect(other.kind == .other && other.type == .unknown && abs(other.footstepProbability - 0.4) < 1e-12)
        let unsureFootstep = FootstepModelClassifier.decide([0.4, 0.3, 0.1, 0.0, 0.2], intensity: .low)
        #expect(unsureFootstep.kind == .footstep && unsureFootstep.type == .unknown && unsureFootstep.confidence == 0.4)
        let spread = FootstepModelClassifier.decide([0.3, 0.25, 0.2, 0.0, 0.25], intensity: .low)
        #expect(spread.kind == .footstep && spread.type == .unknown && spread.confidence == 0.3)
        #expect(abs(spread.footstepProbability - 0.75) < 1e-12)
        // Other most likely, below 0.5: still other, with its own probability as confidence.
        let unsureOther = FootstepModelClassifier.decide([0.2, 0.15, 0.1, 0.1, 0.45], intensity: .low)
        #expect(unsureOther.kind == .other && unsureOther.confidence == 0.45)
    }

    @Test func generatedSegmentsGiveValidClassifications() throws {
        var classifier = try FootstepModelClassifier()
        var generator = Generator(state: 7)
        let rate = 16000.0
        var segment = [Float](repeating: 0, count: 8800)
        var onset: Int64 = 0
        for trial in 0..<200 {
            let noise = Float(pow(10, -3 * generator.unit()))
            let impact = Float(pow(10, -2 * generator.unit()))
            let frequency = 30 + 2000 * generator.unit() * generator.unit()
            let tau = 0.005 + 0.2 * generator.unit()
            for i in 0..<segment.count {
                let t = Double(i - 800) / rate
                var value = noise * Float(generator.normal())
                if t >= 0 { value += impact * Float(exp(-t / tau) * sin(2 * .pi * frequency * t)) }
                segment[i] = trial % 17 == 0 ? 0 : value  // digital silence too
            }
            onset += Int64(rate * (0.1 + 3 * generator.unit()))
            let event = ImpactEvent(
                onsetFrame: onset, durationFrames: Int(rate * (0.02 + generator.unit())), peakDBFS: -20,
                lafMax: 60 + 30 * generator.unit(), lcfMax: 60 + 40 * generator.unit(), sel: 50 + 30 * generator.unit(),
                backgroundLAF: 40 + 20 * generator.unit(), strength: 1 + 50 * generator.unit(), detectorConfidence: 0.7,
                framesSincePreviousOnset: nil)
            let result = segment.withUnsafeBufferPointer {
                classifier.classify(event, segment: $0, preRollFrames: 800, sampleRate: rate)
            }
            try checkContract(result, probabilities: classifier.probabilities)
            #expect(result.intensity == Intensity(levelAboveBackground: event.lafMax - event.backgroundLAF))
        }
    }

    @Test func featuresDoNotDependOnTheAbsoluteLevel() {
        let rate = 16000.0
        var generator = Generator(state: 3)
        let base = (0..<8800).map { i -> Float in
            let t = Double(i - 800) / rate
            return 0.001 * Float(generator.normal()) + (t >= 0 ? Float(0.2 * exp(-t / 0.05) * sin(2 * .pi * 60 * t)) : 0)
        }
        func features(gain: Float, offset: Double) -> [Double] {
            var extractor = EventFeatureExtractor()
            let event = ImpactEvent(
                onsetFrame: 16000, durationFrames: 3200, peakDBFS: -14, lafMax: 70 + offset, lcfMax: 82 + offset,
                sel: 66 + offset, backgroundLAF: 40 + offset, strength: 12, detectorConfidence: 0.9,
                framesSincePreviousOnset: nil)
            let scaled = base.map { $0 * gain }
            scaled.withUnsafeBufferPointer { extractor.extract(event, segment: $0, preRollFrames: 800, sampleRate: rate) }
            return extractor.values
        }
        let reference = features(gain: 1, offset: 0)
        let quieter = features(gain: 0.05, offset: -26)
        for (index, name) in EventFeatures.names.enumerated() {
            #expect(abs(reference[index] - quieter[index]) < 0.01 * max(1, abs(reference[index])), "\(name)")
        }
    }

    @Test func unreadableOrMismatchedModelFilesAreClearErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("footstep-model-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let missing = directory.appendingPathComponent("missing.json")
        #expect(throws: ClassifierError.self) { try FootstepModel.load(contentsOf: missing) }

        let garbage = directory.appendingPathComponent("garbage.json")
        try Data("{\"format\": 3".utf8).write(to: garbage)
        do {
            _ = try FootstepModel.load(contentsOf: garbage)
            Issue.record("garbage loaded")
        } catch {
            #expect("\(error)".contains("garbage.json"))
            guard case .modelInvalid = error else { Issue.record("\(error)"); return }
        }

        var model = try FootstepModel.bundled()
        model.features[3] = "something_else"
        let renamed = directory.appendingPathComponent("renamed.json")
        try JSONEncoder().encode(model).write(to: renamed)
        do {
            _ = try FootstepModel.load(contentsOf: renamed)
            Issue.record("mismatched features loaded")
        } catch {
            guard case .featureMismatch = error else { Issue.record("\(error)"); return }
            #expect("\(error)".contains("something_else"))
            #expect("\(error)".contains("train_classifier.py"))
        }

        model = try FootstepModel.bundled()
        model.featureVersion += 1
        #expect(throws: ClassifierError.self) { try FootstepModelClassifier(model: model) }

        model = try FootstepModel.bundled()
        model.trees?.baseline.removeLast()
        #expect(throws: ClassifierError.self) { try FootstepModelClassifier(model: model) }
    }

    private func checkContract(_ result: Classification, probabilities: [Double]) throws {
        #expect(result.confidence >= 0 && result.confidence <= 1 && result.confidence.isFinite)
        #expect(FootstepType.allCases.contains(result.type))
        if result.confidence < 0.5 { #expect(result.type == .unknown) }
        if result.kind == .other { #expect(result.type == .unknown) }
        #expect(abs(probabilities.reduce(0, +) - 1) < 1e-9)
        #expect(probabilities.allSatisfy { $0 >= 0 && $0 <= 1 })
    }
}
