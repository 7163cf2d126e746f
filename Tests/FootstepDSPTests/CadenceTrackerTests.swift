import Testing

@testable import FootstepDSP

/// When the detector's rhythm tracker expects the next step.
@Suite struct CadenceTrackerTests {
    static let rate = 16000.0

    static func tracker(onsets seconds: [Double]) -> CadenceTracker {
        var tracker = CadenceTracker(sampleRate: rate)
        for time in seconds { tracker.record(frame(time)) }
        return tracker
    }

    static func frame(_ seconds: Double) -> Int64 { Int64((seconds * rate).rounded()) }

    @Test func threeEvenStepsPredictTheNextOnesAndMissedOnes() {
        let tracker = Self.tracker(onsets: [1.0, 1.5, 2.0])
        #expect(tracker.expectsStep(at: Self.frame(2.5)))
        #expect(tracker.expectsStep(at: Self.frame(2.57)))
        #expect(!tracker.expectsStep(at: Self.frame(2.7)))
        #expect(!tracker.expectsStep(at: Self.frame(2.25)))
        #expect(tracker.expectsStep(at: Self.frame(3.0)))  // one step missed
        #expect(tracker.expectsStep(at: Self.frame(3.5)))  // two missed
        #expect(!tracker.expectsStep(at: Self.frame(4.0)))  // three missed: too far to predict
    }

    @Test func unevenOrTooSlowOnsetsEstablishNoRhythm() {
        #expect(!Self.tracker(onsets: [1.0, 1.5, 2.3]).expectsStep(at: Self.frame(2.8)))  // intervals 0.5 and 0.8
        #expect(!Self.tracker(onsets: [1.0, 2.0, 3.0]).expectsStep(at: Self.frame(4.0)))  // 1 step/s: not a gait
        #expect(!Self.tracker(onsets: [1.0, 1.5]).expectsStep(at: Self.frame(2.0)))  // two onsets are not a rhythm
    }

    @Test func anOnsetOffTheRhythmDoesNotMoveIt() {
        // A knock at 2.2 s between steps at 2.0 and 2.5 s.
        let tracker = Self.tracker(onsets: [1.0, 1.5, 2.0, 2.2])
        #expect(tracker.expectsStep(at: Self.frame(2.5)))
        #expect(!tracker.expectsStep(at: Self.frame(2.7)))
    }

    @Test func theRhythmFollowsASlowingWalkAndIsDroppedAfterALongPause() {
        var tracker = Self.tracker(onsets: [1.0, 1.5, 2.0, 2.55, 3.1])
        // Expected at 3.62 s only because the rhythm moved to the step at 3.1 s (from
        // 2.0 s at 0.5 s it would be 0.12 s off).
        #expect(tracker.expectsStep(at: Self.frame(3.62)))
        tracker.record(Self.frame(6.0))  // 2.9 s later: more than 3.5 intervals
        #expect(!tracker.expectsStep(at: Self.frame(6.5)))
    }
}
