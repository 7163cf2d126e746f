import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepDSP
import Foundation
import Testing

/// The frame step network's decision on the labels, through the whole
/// pipeline on synthesized audio: what it changes, that the report stays a
/// consistent story (each revision starts from the label last reported), and
/// that it delays no event's first report.
@Suite struct FrameEvidenceTests {
    /// One event's reports, as a consumer of the outputs sees them.
    struct Story {
        var firstHop: Int
        var firstLabel: String
        var label: String
        var reports = 1
    }

    /// The outputs of a scenario's first `seconds`, one hop (160 frames) at a time:
    /// each event's story, by onset frame; `inconsistencies` lists revisions
    /// whose previous label is not the one last reported.
    static func stories(
        model: FootstepModel, frameNetwork: Bool = true, scenario name: SynthesisScenario.Name = .mixed,
        seconds: Double = 40, adjust: (inout SynthesisScenario) -> Void = { _ in }
    ) throws -> (stories: [Int64: Story], inconsistencies: [String], provisional: Int, settlements: Int) {
        var scenario = SynthesisScenario(name, seed: 11)
        scenario.duration = seconds
        adjust(&scenario)
        let source = try SyntheticSource(scenario: scenario)
        var configuration = AnalysisConfiguration()
        configuration.frameNetwork = frameNetwork
        var pipeline = try AnalysisPipeline(
            format: source.format, configuration: configuration, classifier: try FootstepModelClassifier(model: model))
        var stories: [Int64: Story] = [:]
        var inconsistencies: [String] = []
        var provisional = 0
        var settlements = 0
        var hop = 0
        func take(_ output: AnalysisOutput) {
            switch output {
            case let .event(event), let .provisional(event):
                if case .provisional = output { provisional += 1 }
                if stories[event.onsetFrame] != nil { inconsistencies.append("\(event.onsetFrame) reported twice") }
                stories[event.onsetFrame] = Story(firstHop: hop, firstLabel: event.label, label: event.label)
            case let .revision(revision):
                if revision.settles { settlements += 1 }
                let previous = revision.previousKind.label(revision.previousType)
                guard var story = stories[revision.onsetFrame] else {
                    inconsistencies.append("\(revision.onsetFrame) revised before it was reported")
                    return
                }
                if story.label != previous { inconsistencies.append("\(revision.onsetFrame) was \(story.label), revised from \(previous)") }
                story.label = revision.kind.label(revision.type)
                story.reports += 1
                stories[revision.onsetFrame] = story
            case .levels:
                break
            }
        }
        var block = [Float](repeating: 0, count: 160)
        while true {
            let read = try block.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            guard read > 0 else { break }
            block.withUnsafeBufferPointer { pipeline.process($0, frames: read, output: take) }
            hop += 1
        }
        pipeline.finish(output: take)
        return (stories, inconsistencies, provisional, settlements)
    }

    /// The bundled model without a frame network.
    static func plainModel() throws -> FootstepModel {
        var plain = try FootstepModel.bundled()
        plain.frameNetwork = nil
        return plain
    }

    /// Steps through a concrete slab at 3 dB SNR.
    static func lowSNRSlab(_ scenario: inout SynthesisScenario) {
        scenario.floor = .concreteSlab
        scenario.snrDB = 3
    }

    /// A decision of one leaf: every candidate a footstep, or none.
    static func always(_ footstep: Bool) -> FootstepModel.FrameNetwork.Decision {
        .init(
            trees: TreeEnsemble(
                baseline: [0],
                trees: [
                    .init(
                        output: 0, feature: [-1], threshold: [0], left: [0], right: [0], missingLeft: [false],
                        value: [footstep ? 5 : -5])
                ]),
            threshold: 0.5)
    }

    /// The bundled model with a frame network that says `probability` for
    /// every frame, and a decision that calls every candidate a footstep or none.
    static func model(saying probability: Double, footsteps: Bool) throws -> FootstepModel {
        var model = try FootstepModel.bundled()
        let channels = 8
        model.frameNetwork = FootstepModel.FrameNetwork(
            pictureVersion: FramePicture.version, bands: FramePicture.bandCount, pictureScale: 20, lookahead: 30,
            convolutions: [
                .init(inputs: FramePicture.bandCount, outputs: channels, dilation: 1,
                      weights: [Double](repeating: 0, count: channels * FramePicture.bandCount * 3),
                      biases: [Double](repeating: 0, count: channels), residual: false),
            ],
            output: .init(weights: [[Double](repeating: 0, count: channels)], biases: [log(probability / (1 - probability))], activation: "linear"),
            decision: always(footsteps))
        try model.validate()
        return model
    }

    @Test func aDecisionThatHearsStepsEverywhereMakesEveryDetectionAFootstepAfterItsFirstReport() throws {
        let without = try Self.stories(model: Self.plainModel(), scenario: .distractors)
        let with = try Self.stories(model: Self.model(saying: 0.99, footsteps: true), scenario: .distractors)
        #expect(with.inconsistencies.isEmpty, "\(with.inconsistencies.prefix(5))")
        #expect(without.inconsistencies.isEmpty, "\(without.inconsistencies.prefix(5))")
        // The same detections, first reported in the same hop with the same label.
        #expect(Set(without.stories.keys).isSubset(of: with.stories.keys))
        #expect(with.stories.count >= 20, "too few events to judge: \(with.stories.count)")
        for (onset, story) in without.stories {
            #expect(with.stories[onset]?.firstHop == story.firstHop, "event \(onset) first reported later")
            #expect(with.stories[onset]?.firstLabel == story.firstLabel)
        }
        // Every one ends a footstep of one of the four types (or `unknown` below 0.5 confidence) ...
        let others = without.stories.values.filter { $0.label == "other" }.count
        #expect(others >= 10, "the scenario's distractors give `other`s to rescue: \(others)")
        // Except near the stream's end, whose window is never heard: those keep their labels.
        let left = with.stories.filter { $0.value.label == "other" && Double($0.key) / 16_000 < 40 - 2.5 }
            .map { (Double($0.key) / 16_000, $0.value.reports) }
        #expect(left.isEmpty, "left `other` (onset s, reports): \(left)")
        // A provisional report is settled exactly once.
        #expect(with.settlements == with.provisional)
    }

    /// A model whose frame network hears loudness: with no look-ahead, its
    /// probability at a frame rises with the picture's mean level there
    /// (0.05 at 1 dB over the floors, 0.73 at 5 dB).
    static func loudnessModel(decision: FootstepModel.FrameNetwork.Decision) throws -> FootstepModel {
        var model = try FootstepModel.bundled()
        let bands = FramePicture.bandCount
        model.frameNetwork = FootstepModel.FrameNetwork(
            pictureVersion: FramePicture.version, bands: bands, pictureScale: 20, lookahead: 0,
            convolutions: [
                .init(inputs: bands, outputs: 1, dilation: 1,
                      weights: (0..<bands * 3).map { $0 % 3 == 2 ? 1 / Double(bands) : 0 }, biases: [0], residual: false),
            ],
            output: .init(weights: [[20]], biases: [-4], activation: "linear"),
            decision: decision)
        try model.validate()
        return model
    }

    /// `model` without its bout typer: an added step then ends with its
    /// leader's type (with one, it is a step of its bout, which the typer names
    /// again after the frame evidence: `BoutRevisionStage`).
    static func withoutBoutTyper(_ model: FootstepModel) -> FootstepModel {
        var model = model
        model.boutTyper = nil
        return model
    }

    @Test func anAddedStepTakesTheTypeOfTheNearestFootstep() throws {
        // Many steps the detector does not find; every candidate with a footstep within 2 s is one.
        let without = try Self.stories(model: Self.withoutBoutTyper(Self.plainModel()), seconds: 60, adjust: Self.lowSNRSlab)
        let with = try Self.stories(model: Self.withoutBoutTyper(Self.decisionModel()), seconds: 60, adjust: Self.lowSNRSlab)
        #expect(with.inconsistencies.isEmpty, "\(with.inconsistencies.prefix(5))")
        let detections = Set(without.stories.keys)
        let footsteps = without.stories.filter { $0.value.label != "other" }.map(\.key)
        let added = with.stories.filter { !detections.contains($0.key) }
        #expect(added.count >= 2, "too few added to judge: \(added.count)")
        var compared = 0
        for (onset, story) in added {
            // More than 100 ms from every detection, a footstep, reported once.
            #expect(detections.allSatisfy { abs($0 - onset) > 1_600 }, "\(Double(onset) / 16_000) s")
            #expect(story.label != "other" && story.reports == 1)
            let near = footsteps.filter { abs($0 - onset) > 800 && abs($0 - onset) <= 32_000 }
            let nearest = try #require(near.min { abs($0 - onset) < abs($1 - onset) }, "\(Double(onset) / 16_000) s")
            // It ends with the type its nearest footstep ends with (unless that one's confidence is too low for a type).
            let leader = try #require(without.stories[nearest]).label
            if leader != "unknown" {
                #expect(story.label == leader, "\(Double(onset) / 16_000) s")
                compared += 1
            }
        }
        #expect(compared >= 1)
    }

    /// One tree of one split: a footstep (logit 5) where feature `index` is
    /// above 0.5, not one (−5) where it is at most that or missing.
    static func split(on index: Int) -> TreeEnsemble {
        TreeEnsemble(
            baseline: [0],
            trees: [
                .init(
                    output: 0, feature: [index, -1, -1], threshold: [0.5, 0, 0], left: [1, 0, 0],
                    right: [2, 0, 0], missingLeft: [true, false, false], value: [0, -5, 5])
            ])
    }

    /// `loudnessModel`'s network with a learned decision of one tree: a
    /// footstep where the gait context has a footstep within the window
    /// (`footsteps_2s` at least 1), whatever the network and the event model say.
    static func decisionModel() throws -> FootstepModel {
        let footsteps = try #require(FrameDecision.featureNames.firstIndex(of: "footsteps_2s"))
        return try loudnessModel(decision: .init(trees: split(on: footsteps), threshold: 0.5))
    }

    @Test func aDecisionJudgesEveryDetectionAndNetworkOnsetByWhatIsAroundIt() throws {
        let without = try Self.stories(model: Self.plainModel(), seconds: 60, adjust: Self.lowSNRSlab)
        let with = try Self.stories(model: Self.decisionModel(), seconds: 60, adjust: Self.lowSNRSlab)
        #expect(with.inconsistencies.isEmpty, "\(with.inconsistencies.prefix(5))")
        #expect(with.settlements == with.provisional)
        let detections = Set(without.stories.keys)
        #expect(detections.isSubset(of: with.stories.keys))
        let footsteps = without.stories.filter { $0.value.label != "other" }.map(\.key)
        // More than 50 ms and at most 2 s away, before or after.
        func accompanied(_ onset: Int64) -> Bool { footsteps.contains { abs($0 - onset) > 800 && abs($0 - onset) <= 32_000 } }
        let heard = Int64((60 - 2.5) * 16_000)
        var kept = (footsteps: 0, others: 0)
        for (onset, story) in without.stories where onset < heard {
            #expect(with.stories[onset]?.firstHop == story.firstHop && with.stories[onset]?.firstLabel == story.firstLabel)
            let label = with.stories[onset]?.label ?? "missing"
            #expect((label != "other") == accompanied(onset), "\(Double(onset) / 16_000) s: \(label) (was \(story.label))")
            if label != "other" { kept.footsteps += 1 } else { kept.others += 1 }
        }
        #expect(kept.footsteps >= 5 && kept.others >= 3, "the scenario needs both: \(kept)")
        // The network's own onsets are added only with a footstep around them, once each.
        let added = with.stories.filter { !detections.contains($0.key) }
        #expect(added.count >= 2, "too few added to judge: \(added.count)")
        for (onset, story) in added where onset < heard {
            #expect(detections.allSatisfy { abs($0 - onset) > 1_600 }, "\(Double(onset) / 16_000) s")
            #expect(accompanied(onset) && story.label != "other", "\(Double(onset) / 16_000) s")
        }
    }

    @Test func anAddedStepFarFromEveryFootstepTakesTheWalkersType() throws {
        // Every candidate is a footstep.
        let model = try Self.loudnessModel(decision: Self.always(true))
        let without = try Self.stories(model: Self.plainModel(), seconds: 60, adjust: Self.lowSNRSlab)
        let with = try Self.stories(model: model, seconds: 60, adjust: Self.lowSNRSlab)
        #expect(with.inconsistencies.isEmpty, "\(with.inconsistencies.prefix(5))")
        let detections = Set(without.stories.keys)
        let firstFootstep = try #require(without.stories.filter { $0.value.label != "other" }.keys.min())
        let lone = with.stories.filter { onset, _ in
            !detections.contains(onset) && onset > firstFootstep + 32_000
                && !without.stories.contains { $0.value.label != "other" && abs($0.key - onset) <= 32_000 }
        }
        #expect(!lone.isEmpty, "the scenario needs added steps with no footstep within 2 s")
        for (onset, story) in lone {
            #expect(story.label != "other" && story.label != "unknown", "\(Double(onset) / 16_000) s: \(story.label)")
        }
        // Every detection is a footstep too (unless the stream ended before it was judged).
        let judged = Int64((60 - 2.5) * 16_000)
        #expect(with.stories.filter { $0.key < judged && $0.value.label == "other" }.isEmpty)
    }

    @Test func aDecisionOnOtherFeaturesIsRefused() throws {
        var model = try Self.decisionModel()
        model.frameNetwork?.decision?.features = Array(FrameDecision.featureNames.dropLast())
        #expect(throws: ClassifierError.self) { try model.validate() }
        model = try Self.decisionModel()
        model.frameNetwork?.decision?.trees.trees[0].feature[0] = FrameDecision.featureNames.count
        #expect(throws: ClassifierError.self) { try model.validate() }
    }

    @Test func aDecisionThatHearsNoStepVetoesEveryFootstep() throws {
        let with = try Self.stories(model: Self.model(saying: 0.01, footsteps: false))
        #expect(with.inconsistencies.isEmpty, "\(with.inconsistencies.prefix(5))")
        #expect(with.stories.count >= 20)
        #expect(with.stories.values.allSatisfy { $0.label == "other" })
        #expect(with.stories.values.contains { $0.firstLabel != "other" }, "footsteps were first reported as such")
        #expect(with.settlements == with.provisional)
    }

    @Test func noFrameNetworkIsTheSameAsAModelWithout() throws {
        let without = try Self.stories(model: Self.plainModel())
        let off = try Self.stories(model: Self.model(saying: 0.01, footsteps: false), frameNetwork: false)
        #expect(without.stories.mapValues(\.label) == off.stories.mapValues(\.label))
        #expect(without.provisional == off.provisional)
    }
}
