import FootstepClassifier
import FootstepCore
import FootstepDSP
import Testing

@testable import FootstepAnalysis

/// Types named again when a bout has ended: when a bout ends, what a
/// revision carries, and that steps without a type keep none. The model here
/// is written by hand so the expected types can be read off it; the shipped
/// model's features are pinned against `tools/eval/bout_typer.py` by
/// `tools/eval/test_slice.py`.
@Suite struct BoutReviserTests {
    /// Running when the bout's cadence is above 2.45 steps/s, stomping when
    /// the bout is more than 4 dB above the stream's 30th percentile, else
    /// heel strike: one stump a type.
    static let model: BoutTypeModel = {
        let cadence = BoutTypeModel.featureNames.firstIndex(of: "bout_cadence_hz")!
        let rise = BoutTypeModel.featureNames.firstIndex(of: "bout_level_over_q30_db")!
        func stump(_ output: Int, _ feature: Int, _ threshold: Double) -> TreeEnsemble.Tree {
            TreeEnsemble.Tree(
                output: output, feature: [feature, -1, -1], threshold: [threshold, 0, 0], left: [1, 0, 0],
                right: [2, 0, 0], missingLeft: [true, false, false], value: [0, -1, 5])
        }
        return BoutTypeModel(
            classes: BoutTypeModel.classNames, features: BoutTypeModel.featureNames,
            trees: TreeEnsemble(baseline: [0, 1, 0, 0], trees: [stump(3, cadence, 2.45), stump(0, rise, 4)]))
    }()

    static func step(at onset: Double, laMax: Double = 60, type: FootstepType = .heelStrike, footstep: Double = 0.9)
        -> AnalyzedEvent
    {
        var event = BoutTypingTests.step(at: onset, laMax: laMax, footstep: footstep)
        event.type = type
        return event
    }

    /// Feeds `events` (released in this order) and returns the revisions; `horizon` then ends the stream
    /// there (`advance`), or with `finish` when nil.
    static func revisions(_ events: [AnalyzedEvent], horizon: Double? = nil, model: BoutTypeModel = model) -> [TypeRevision] {
        var reviser = BoutReviser(model: BoutTypePredictor(model), holdSeconds: 1.85)
        var out: [TypeRevision] = []
        let collect: (AnalysisOutput) -> Void = { if case let .revision(r) = $0 { out.append(r) } }
        for event in events { reviser.add(event, output: collect) }
        if let horizon { reviser.advance(to: horizon, output: collect) } else { reviser.finish(output: collect) }
        return out
    }

    @Test func aBoutAtARunnersCadenceIsRevisedToRunningWhenItEnds() {
        let run = (0..<8).map { Self.step(at: 10 + Double($0) * 0.33) }
        let revisions = Self.revisions(run)
        #expect(revisions.count == 8)
        #expect(revisions.allSatisfy { $0.type == .running && $0.previousType == .heelStrike && $0.confidence == 0.9 })
        #expect(revisions.map(\.onsetFrame) == run.map(\.onsetFrame))
        let walk = (0..<8).map { Self.step(at: 10 + Double($0) * 0.55) }
        #expect(Self.revisions(walk).isEmpty, "heel strikes named heel strikes are not revised")
    }

    /// The stage after the frame evidence types the footsteps the pipeline
    /// finally reports: a provisional report joins its bout as its settlement
    /// labels it, a step vetoed later leaves it, and the items pass on first.
    @Test func theRevisionStageTypesTheSettledFootsteps() {
        var stage = BoutRevisionStage(model: BoutTypePredictor(Self.model), holdSeconds: 1.85)
        var out: [AnalysisOutput] = []
        let collect: (AnalysisOutput) -> Void = { out.append($0) }
        let run = (0..<8).map { Self.step(at: 10 + Double($0) * 0.33) }
        func settling(_ event: AnalyzedEvent, as kind: EventKind) -> TypeRevision {
            var settled = event
            settled.kind = kind
            return TypeRevision(settling: event, as: settled)
        }
        var provisionalOther = run[3]
        provisionalOther.kind = .other
        for (index, event) in run.enumerated() {
            switch index {
            case 3:  // reported as `other`, settled a footstep
                stage.accept(.provisional(provisionalOther), output: collect)
                stage.accept(.revision(settling(provisionalOther, as: .footstep)), output: collect)
            case 5:  // reported as a footstep, settled `other`
                stage.accept(.provisional(event), output: collect)
                stage.accept(.revision(settling(event, as: .other)), output: collect)
            default:
                stage.accept(.event(event), output: collect)
            }
        }
        // A step the frame evidence vetoes after its report leaves the bout.
        let veto = TypeRevision(
            onsetFrame: run[7].onsetFrame, onsetSeconds: run[7].onsetSeconds, previousType: .heelStrike, kind: .other,
            type: .unknown, confidence: 0.8, footstepProbability: 0.2)
        stage.accept(.revision(veto), output: collect)
        #expect(out.count == 11, "every item passes on, nothing revised before the bout ends")
        let last = run[6].onsetSeconds
        stage.advance(to: last + 1.5 + 1.8, output: collect)
        #expect(out.count == 11, "a step could still join")
        stage.advance(to: last + 1.5 + 1.9, output: collect)
        let revised = out.dropFirst(11).compactMap { if case let .revision(r) = $0 { r } else { nil } }
        #expect(revised.map(\.onsetFrame) == [0, 1, 2, 3, 4, 6].map { run[$0].onsetFrame })
        #expect(revised.allSatisfy { $0.type == .running && !$0.settles })
    }

    @Test func aBoutEndsOnlyWhenNoHeldStepCanStillExtendIt() {
        let run = (0..<6).map { Self.step(at: 10 + Double($0) * 0.33) }
        let last = run.last!.onsetSeconds
        #expect(Self.revisions(run, horizon: last + 1.5 + 1.8).isEmpty, "a step released late could still join")
        #expect(Self.revisions(run, horizon: last + 1.5 + 1.86).count == 6)
    }

    @Test func aStepMoreThanTheGapLaterStartsTheNextBout() {
        let loud = (0..<5).map { Self.step(at: 10 + Double($0) * 0.6, laMax: 70) }
        let ordinary = (0..<10).map { Self.step(at: Double($0) * 0.6, laMax: 60) }
        // The ordinary walk first (the stream's reference), then a louder bout 4 s later.
        let revisions = Self.revisions(ordinary + loud.map { var e = $0; e.onsetFrame += 4000; e.onsetSeconds += 4; return e })
        #expect(revisions.count == 5)
        #expect(revisions.allSatisfy { $0.type == .stomping && $0.onsetSeconds >= 14 })
    }

    @Test func aStepWithoutATypeKeepsNone() {
        let run = (0..<6).map { Self.step(at: 10 + Double($0) * 0.33, type: $0 == 2 ? .unknown : .heelStrike, footstep: $0 == 2 ? 0.4 : 0.9) }
        let revisions = Self.revisions(run)
        #expect(revisions.count == 5)
        #expect(!revisions.contains { $0.onsetFrame == run[2].onsetFrame })
    }

    @Test func aStepReleasedLateTakesItsPlaceInTheBout() {
        var run = (0..<6).map { Self.step(at: 10 + Double($0) * 0.33) }
        run.swapAt(2, 3)
        #expect(Self.revisions(run).count == 6, "one bout at 3 steps/s, not broken by the late step")
    }

    @Test func percentilesInterpolateLikeNumpy() {
        var values = [4.0, 1, 3, 2]
        #expect(BoutReviser.percentile(30, of: &values) == 1.9)
        var one = [5.0]
        #expect(BoutReviser.percentile(50, of: &one) == 5)
    }

    /// The percentiles' heapsort against the standard library's sort: every length up
    /// to 70 and a ring of 1,024, with ties, negatives and already-ordered runs.
    @Test func theInPlaceSortSortsLikeTheStandardLibrary() {
        var random = SeededRandom(seed: 3)
        for count in Array(0...70) + [1_024] {
            var values = (0..<count).map { _ in Double(Int(random.next() % 41) - 20) / 4 }
            if count > 10 { values.replaceSubrange(0..<5, with: [-9, -8, -7, -6, -5]) }
            let expected = values.sorted()
            values.sortInPlace()
            #expect(values == expected, "\(count) values")
        }
    }

    @Test func aBoutTyperForOtherFeaturesIsRefusedNamingTheFirstDifference() {
        var model = Self.model
        model.features[3] = "bout_level_over_q20_db"
        #expect(throws: ClassifierError.self) { try model.validate(path: "m.json") }
        do {
            try model.validate(path: "m.json")
        } catch {
            #expect(error.description.contains("bout feature 3 is 'bout_level_over_q20_db', expected 'bout_level_over_q30_db'"))
            #expect(error.description.contains("--bout-typers-only"))
        }
        #expect(throws: Never.self) { try Self.model.validate(path: "m.json") }
    }

    @Test func aRevisionBelowTheMinimumConfidenceNamesNoType() {
        func type(after output: AnalysisOutput) -> FootstepType? {
            if case let .revision(revision) = output { revision.type } else { nil }
        }
        let revision = TypeRevision(onsetFrame: 1, onsetSeconds: 0.001, previousType: .heelStrike, type: .running, confidence: 0.6)
        #expect(type(after: AnalysisOutput.revision(revision).requiringConfidence(0.7)) == .unknown)
        #expect(type(after: AnalysisOutput.revision(revision).requiringConfidence(0.5)) == .running)
        // A settlement as `other` keeps its kind whatever its confidence.
        let other = TypeRevision(
            onsetFrame: 1, onsetSeconds: 0.001, previousType: .unknown, kind: .other, type: .unknown, confidence: 0.1,
            settles: true)
        #expect(AnalysisOutput.revision(other).requiringConfidence(0.5).revisionKind == .other)
    }
}

extension AnalysisOutput {
    fileprivate var revisionKind: EventKind? {
        if case let .revision(revision) = self { revision.kind } else { nil }
    }
}
