import FootstepClassifier
import FootstepCore
import FootstepDSP
import Testing

@testable import FootstepAnalysis

/// A footstep's type from its bout: cadence, loudness above the walker's
/// ordinary steps, the classifier's scrape; never from absolute levels.
@Suite struct BoutTypingTests {
    static func step(
        at onset: Double, laMax: Double, heard: FootstepType = .heelStrike, footstep: Double = 0.9
    ) -> AnalyzedEvent {
        let impact = ImpactEvent(
            onsetFrame: Int64((onset * 1000).rounded()), durationFrames: 100, peakDBFS: -20, lafMax: laMax,
            lcfMax: laMax + 5, sel: laMax - 5, backgroundLAF: laMax - 20, strength: 3, detectorConfidence: 0.8,
            framesSincePreviousOnset: nil)
        let classification = Classification(
            kind: .footstep, type: heard, confidence: footstep, intensity: .medium, footstepProbability: footstep)
        return AnalyzedEvent(impact, classification: classification, sampleRate: 1000)
    }

    /// Names `events` in order and returns their types.
    static func types(_ events: [AnalyzedEvent]) -> [FootstepType] {
        var typing = BoutTyping()
        return events.map { event in
            var named = event
            typing.name(&named)
            return named.type
        }
    }

    @Test func stepsAtARunnersCadenceAreRunningWhateverTheClassifierHeard() {
        let run = (0..<6).map { Self.step(at: 10 + Double($0) * 0.33, laMax: 60, heard: .stomping) }
        #expect(Self.types(run).dropFirst().allSatisfy { $0 == .running })
        let walk = (0..<6).map { Self.step(at: 10 + Double($0) * 0.55, laMax: 60, heard: .running) }
        #expect(Self.types(walk).dropFirst().allSatisfy { $0 == .heelStrike })
    }

    @Test func aStepWellAboveTheWalkersOrdinaryStepsIsStomping() {
        let ordinary = (0..<8).map { Self.step(at: Double($0) * 0.6, laMax: 60 + Double($0 % 3)) }
        let louder = Self.step(at: 20, laMax: 60 + BoutTyping.stompRiseDB + 2)
        let alittle = Self.step(at: 20, laMax: 60 + BoutTyping.stompRiseDB - 2)
        #expect(Self.types(ordinary + [louder]).last == .stomping)
        #expect(Self.types(ordinary + [alittle]).last == .heelStrike)
    }

    @Test func theMicrophonesGainDoesNotChangeTheTypes() {
        let night = (0..<8).map { Self.step(at: Double($0) * 0.6, laMax: 60) } + [
            Self.step(at: 20, laMax: 67), Self.step(at: 30, laMax: 61, heard: .shuffling),
        ] + (0..<4).map { Self.step(at: 40 + Double($0) * 0.3, laMax: 60) }
        let quieter = night.map { event -> AnalyzedEvent in
            var e = event
            e.laMax -= 30
            return e
        }
        #expect(Self.types(night) == Self.types(quieter))
        #expect(Self.types(night)[8] == .stomping && Self.types(night)[9] == .shuffling)
    }

    @Test func aFootstepBelowEvenOddsKeepsTypeUnknown() {
        var typing = BoutTyping()
        var doubtful = Self.step(at: 1, laMax: 60, heard: .stomping, footstep: 0.45)
        doubtful.type = .unknown
        doubtful.confidence = 0.45
        typing.name(&doubtful)
        #expect(doubtful.type == .unknown && doubtful.confidence == 0.45)
        var sure = Self.step(at: 2, laMax: 60, heard: .heelStrike, footstep: 0.8)
        sure.confidence = 0.6
        typing.name(&sure)
        #expect(sure.type == .heelStrike && sure.confidence == 0.8, "the confidence is P(footstep), in [0.5, 1]")
    }

    /// A walk of stomps only has no ordinary steps to compare with: stomps the
    /// classifier heard stay stomps; a heard stomp quieter than the walker's
    /// ordinary steps does not.
    @Test func aWalkOfStompsOnlyStaysStomping() {
        let stomps = (0..<10).map { Self.step(at: Double($0) * 0.8, laMax: 70 + Double($0 % 2), heard: .stomping) }
        #expect(Self.types(stomps).allSatisfy { $0 == .stomping })
        let ordinary = (0..<8).map { Self.step(at: Double($0) * 0.6, laMax: 60) }
        #expect(Self.types(ordinary + [Self.step(at: 20, laMax: 57, heard: .stomping)]).last == .heelStrike)
    }

    @Test func aLoneStompBeforeAnyReferenceKeepsWhatTheClassifierHeard() {
        #expect(Self.types([Self.step(at: 1, laMax: 80, heard: .stomping)]) == [.stomping])
        #expect(Self.types([Self.step(at: 1, laMax: 80, heard: .heelStrike)]) == [.heelStrike])
    }
}
