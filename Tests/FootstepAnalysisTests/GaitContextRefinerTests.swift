import FootstepClassifier
import FootstepCore
import FootstepDSP
import Testing

@testable import FootstepAnalysis

/// An output handler that hands `body` each event once its label is settled,
/// in the order they settle: an event reported settled as it comes, one
/// reported provisionally with the revision that settles it applied.
func whenSettled(_ body: @escaping (AnalyzedEvent) -> Void) -> (AnalysisOutput) -> Void {
    final class Reported { var provisional: [Int64: AnalyzedEvent] = [:] }
    let reported = Reported()
    return { output in
        switch output {
        case let .event(event): body(event)
        case let .provisional(event): reported.provisional[event.onsetFrame] = event
        case let .revision(revision) where revision.settles:
            if var event = reported.provisional.removeValue(forKey: revision.onsetFrame) {
                event.apply(revision)
                body(event)
            }
        case .revision, .levels: break
        }
    }
}

/// The gait-context rules on hand-made event sequences (1 kHz "stream").
@Suite struct GaitContextRefinerTests {
    static let rate = 1000.0

    static func event(
        at onset: Double, _ kind: EventKind, _ type: FootstepType = .unknown, confidence: Double,
        footstep: Double? = nil, ringing duration: Double = 0.1, laMax: Double = 60, timbre: EventTimbre? = nil
    ) -> AnalyzedEvent {
        let impact = ImpactEvent(
            onsetFrame: Int64((onset * rate).rounded()), durationFrames: Int((duration * rate).rounded()), peakDBFS: -20, lafMax: laMax,
            lcfMax: laMax + 5,
            sel: 55, backgroundLAF: 40, strength: 3, detectorConfidence: 0.8, framesSincePreviousOnset: nil)
        let classification = Classification(
            kind: kind, type: type, confidence: confidence, intensity: .medium, footstepProbability: footstep,
            timbre: timbre)
        return AnalyzedEvent(impact, classification: classification, sampleRate: rate)
    }

    /// A footstep the classifier could not type (confidence below 0.5, type `unknown`): an unsure one.
    static func unsure(
        at onset: Double, footstep: Double = 0.6, laMax: Double = 60, timbre: EventTimbre? = nil
    ) -> AnalyzedEvent {
        event(at: onset, .footstep, .unknown, confidence: 0.4, footstep: footstep, laMax: laMax, timbre: timbre)
    }

    /// Feeds `events` as a stream would (each reported 0.2 s after its onset,
    /// releases every 10 ms), then finishes; returns the output in onset order.
    /// Without `memory` the rules that use the minute's sure footsteps (the
    /// memory and sure-company rules) are off, so that each other rule is
    /// seen alone.
    static func refine(_ events: [AnalyzedEvent], memory: Bool = false) -> [AnalyzedEvent] {
        var refiner = GaitContextRefiner(memory: memory)
        var released: [AnalyzedEvent] = []
        let collect = whenSettled { released.append($0) }
        var next = 0
        let end = (events.last?.onsetSeconds ?? 0) + 1
        var time = 0.0
        while time < end {
            while next < events.count, events[next].onsetSeconds + 0.2 <= time {
                refiner.add(events[next], output: collect)
                next += 1
            }
            refiner.release(knownUntil: time - 0.2, output: collect)
            time += 0.01
        }
        while next < events.count {
            refiner.add(events[next], output: collect)
            next += 1
        }
        refiner.finish(output: collect)
        return released.sorted { $0.onsetFrame < $1.onsetFrame }
    }

    @Test func anUnsureImpactOnTheBeatOfFootstepsBecomesAFootstep() {
        let walk = [0.0, 0.5, 1.0, 1.5, 2.0].map { Self.event(at: $0, .footstep, .heelStrike, confidence: 0.8) }
        var events = walk
        // Too unlikely a footstep (0.08) to be in a train: the beat alone rescues it.
        events.insert(Self.event(at: 2.5, .other, confidence: 0.92), at: 5)
        events.append(Self.event(at: 3.0, .footstep, .heelStrike, confidence: 0.8))
        let out = Self.refine(events)
        #expect(out.map(\.onsetSeconds) == events.map(\.onsetSeconds), "every event, once")
        let rescued = out[5]
        #expect(rescued.kind == .footstep && rescued.type == .unknown)
        #expect(abs(rescued.confidence - 0.08) < 1e-9, "confidence is the classifier's footstep probability")
        #expect(out.filter { $0.kind == .footstep }.count == 7)
    }

    @Test func theBeatMayBeTwoStepsBeforeOrTwoStepsAfter() {
        let before = [0.0, 0.4].map { Self.event(at: $0, .footstep, .running, confidence: 0.7) }
            + [Self.event(at: 0.8, .other, confidence: 0.9)]
        #expect(Self.refine(before).last?.kind == .footstep)
        let after = [Self.event(at: 0.0, .other, confidence: 0.9)]
            + [0.6, 1.2].map { Self.event(at: $0, .footstep, .heelStrike, confidence: 0.7) }
        #expect(Self.refine(after).first?.kind == .footstep)
    }

    @Test func offBeatConfidentOrTooFastImpactsStayOther() {
        let steps = [0.0, 0.5, 1.0].map { Self.event(at: $0, .footstep, .heelStrike, confidence: 0.8) }
        // 0.3 s after the last step of a 0.5 s walk, 0.5 s before the next: off the beat.
        let offBeat = steps + [
            Self.event(at: 1.3, .other, confidence: 0.8), Self.event(at: 1.8, .footstep, .heelStrike, confidence: 0.8),
        ]
        #expect(Self.refine(offBeat)[3].kind == .other)
        // On the beat but the classifier is sure it is not a footstep.
        let sure = steps + [Self.event(at: 1.5, .other, confidence: 0.97)]
        #expect(Self.refine(sure)[3].kind == .other)
        // Knocks 0.15 s apart are faster than any gait.
        let knocks = [0.0, 0.15].map { Self.event(at: $0, .footstep, .running, confidence: 0.7) }
            + [Self.event(at: 0.3, .other, confidence: 0.8)]
        #expect(Self.refine(knocks)[2].kind == .other)
    }

    @Test func aLoneUnsureFootstepBecomesOtherAndATypedOneStays() {
        let events = [
            Self.unsure(at: 1.0, footstep: 0.6),
            Self.event(at: 5.0, .footstep, .stomping, confidence: 0.95),
            Self.event(at: 9.0, .footstep, .stomping, confidence: 0.6, footstep: 0.7),
            Self.event(at: 13.0, .other, confidence: 0.6),
        ]
        let out = Self.refine(events)
        #expect(out[0].kind == .other && out[0].type == .unknown && abs(out[0].confidence - 0.4) < 1e-9)
        #expect(out[1].kind == .footstep && out[1].type == .stomping && out[1].confidence == 0.95)
        #expect(out[2].kind == .footstep && out[2].type == .stomping)
        #expect(out[3].kind == .other)
    }

    /// A sure footstep that rings on (a slammed door the classifier took
    /// for a stomp) must have company like an unsure one; a short sure one
    /// alone, or a ringing one in a walk, stays.
    @Test func aSureFootstepThatRingsOnNeedsCompany() {
        let ringing = GaitContextRefiner.ringingMinimumSeconds
        let events = [
            Self.event(at: 1.0, .footstep, .stomping, confidence: 0.99, footstep: 0.99, ringing: ringing + 0.2),
            Self.event(at: 5.0, .footstep, .stomping, confidence: 0.99, footstep: 0.99, ringing: ringing - 0.1),
        ]
        let out = Self.refine(events)
        #expect(out[0].kind == .other && abs(out[0].confidence - 0.01) < 1e-9)
        #expect(out[1].kind == .footstep && out[1].type == .stomping)
        let walk = [0.0, 0.6, 1.2].map {
            Self.event(at: $0, .footstep, .stomping, confidence: 0.99, footstep: 0.99, ringing: ringing + 0.2)
        }
        #expect(Self.refine(walk).allSatisfy { $0.kind == .footstep && $0.type == .stomping })
    }

    /// A footstep the classifier could not type needs two others within a bout
    /// interval: a pair of unsure impacts (a knock-knock) is `other`, the
    /// same pair typed stays, and so does an unsure walk of three.
    @Test func aPairOfUnsureFootstepsIsOtherAndAWalkOfThreeIsNot() {
        // What the classifier makes of an impact no type reaches 0.5 of, footsteps over all.
        let unsure = FootstepModelClassifier.decide([0.35, 0.3, 0.05, 0.0, 0.3], intensity: .medium)
        #expect(unsure.kind == .footstep && unsure.type == .unknown && unsure.confidence < 0.5)
        let pair = [2.0, 2.4].map {
            Self.event(
                at: $0, unsure.kind, unsure.type, confidence: unsure.confidence, footstep: unsure.footstepProbability)
        }
        #expect(Self.refine(pair).allSatisfy { $0.kind == .other })
        let typed = [2.0, 2.6].map { Self.event(at: $0, .footstep, .heelStrike, confidence: 0.55, footstep: 0.6) }
        #expect(Self.refine(typed).allSatisfy { $0.kind == .footstep && $0.type == .heelStrike })
        let walk = Self.refine([2.0, 2.55, 3.1].map { Self.unsure(at: $0) })
        #expect(walk.allSatisfy { $0.kind == .footstep })
    }

    @Test func aFootstepWithANeighbourWithinABoutIntervalIsNotAlone() {
        // Ringing footsteps need one footstep's company, within 1.5 s.
        let ringing = GaitContextRefiner.ringingMinimumSeconds + 0.1
        func step(at onset: Double) -> AnalyzedEvent {
            Self.event(at: onset, .footstep, .heelStrike, confidence: 0.9, ringing: ringing)
        }
        #expect(Self.refine([step(at: 1.0), step(at: 2.4)]).allSatisfy { $0.kind == .footstep && $0.type == .heelStrike })
        // 1.6 s apart: each alone.
        #expect(Self.refine([step(at: 1.0), step(at: 2.6)]).allSatisfy { $0.kind == .other })
    }

    @Test func unsureStepsWithAnImpactCloserThanAnyGaitAreOther() {
        // A knock group the classifier is unsure of: 0.2 s apart, faster than any gait.
        let knocks = [0.0, 0.2, 0.4].map { Self.unsure(at: $0) }
        #expect(Self.refine(knocks).allSatisfy { $0.kind == .other })
        // The same impacts at a walking pace stay footsteps.
        let walk = [10.0, 10.5, 11.0].map { Self.unsure(at: $0) }
        #expect(Self.refine(walk).allSatisfy { $0.kind == .footstep })
        // A sure step keeps its label even with an impact 0.2 s after it.
        let sure = [Self.event(at: 20.0, .footstep, .stomping, confidence: 0.95), Self.event(at: 20.2, .other, confidence: 0.99)]
        #expect(Self.refine(sure).map(\.kind) == [.footstep, .other])
        // An impact on the beat is not rescued when another impact crowds it, whatever comes first
        // (too unlikely a footstep, 0.08, to be in a train).
        for crowd in [29.8, 30.2] {
            var events = [28.5, 29.0, 29.5, 30.5, 31.0].map { Self.event(at: $0, .footstep, .heelStrike, confidence: 0.95) }
            events.append(Self.event(at: 30.0, .other, confidence: 0.92))
            events.append(Self.event(at: crowd, .other, confidence: 0.99))
            events.sort { $0.onsetFrame < $1.onsetFrame }
            let out = Self.refine(events)
            #expect(out.count == 7)
            #expect(out.first { $0.onsetSeconds == 30.0 }?.kind == .other, "crowded by an impact at \(crowd) s")
        }
    }

    @Test func aMuchQuieterImpactIsTheRingNotACrowd() {
        // A slab rings on after a stomp and fires the detector again, 8 dB down, 0.2 s later:
        // the unsure stomps of a walk stay footsteps. The same impact only 3 dB down crowds them
        // (three stomps: four would be a train, which crowding does not stop).
        for (ringLevel, kept) in [(52.0, true), (57.0, false)] {
            var events: [AnalyzedEvent] = []
            for onset in [10.0, 10.7, 11.4] {
                events.append(Self.unsure(at: onset))
                events.append(Self.event(at: onset + 0.2, .other, confidence: 0.99, laMax: ringLevel))
            }
            let steps = Self.refine(events).filter { [10.0, 10.7, 11.4].contains($0.onsetSeconds) }
            #expect(steps.count == 3)
            #expect(steps.allSatisfy { ($0.kind == .footstep) == kept }, "ring at \(ringLevel) dB, stomps at 60 dB")
        }
    }

    /// Two sure steps 1.8 s apart with two impacts the classifier called
    /// `other` on their beat between them (0.6 s apart, give or take a
    /// walker's few per cent; `third` is the third impact's onset, 11.2 exact).
    static func train(
        otherProbability: Double, levels: [Double] = [60, 60, 60, 60], second: Double = 0.6, third: Double = 11.23
    ) -> [AnalyzedEvent] {
        [
            Self.event(at: 10.0, .footstep, .heelStrike, confidence: 0.9, laMax: levels[0]),
            Self.event(at: 10.0 + second, .other, confidence: 1 - otherProbability, laMax: levels[1]),
            Self.event(at: third, .other, confidence: 1 - otherProbability, laMax: levels[2]),
            Self.event(at: 11.8, .footstep, .heelStrike, confidence: 0.9, laMax: levels[3]),
        ]
    }

    @Test func impactsInATrainAtAGaitsPaceAreFootsteps() {
        let out = Self.refine(Self.train(otherProbability: 0.4))
        #expect(out.count == 4)
        #expect(out.allSatisfy { $0.kind == .footstep })
        for rescued in out[1...2] {
            #expect(abs(rescued.footstepProbability - 0.65) < 1e-9, "the train's mean footstep probability")
            #expect(abs(rescued.confidence - 0.65) < 1e-9)
            #expect(rescued.type == .heelStrike, "its bout names its type")
        }
    }

    @Test func aTrainNeedsFootstepsOnAverageOneLevelAndOneBeat() {
        // On average too unlikely footsteps (0.55).
        #expect(Self.refine(Self.train(otherProbability: 0.2)).map(\.kind) == [.footstep, .other, .other, .footstep])
        // One impact 10 dB louder than the first is not the same walker's step.
        let loud = Self.refine(Self.train(otherProbability: 0.4, levels: [60, 60, 70, 60]))
        #expect(loud.map(\.kind) == [.footstep, .other, .other, .footstep])
        // Intervals of 0.9 s then 0.3 s are no beat.
        let offBeat = Self.refine(Self.train(otherProbability: 0.4, second: 0.9))
        #expect(offBeat.map(\.kind) == [.footstep, .other, .other, .footstep])
        // A drum machine's or a clock's beat, exact to the millisecond, is no walker's.
        let exact = Self.refine(Self.train(otherProbability: 0.4, third: 11.2))
        #expect(exact.map(\.kind) == [.footstep, .other, .other, .footstep])
        // An impact between a walk's steps, off its beat, is not in the walk's train.
        var between = [10.0, 10.6, 11.2, 11.8].map { Self.event(at: $0, .footstep, .heelStrike, confidence: 0.95) }
        between.insert(Self.event(at: 10.45, .other, confidence: 0.6), at: 1)
        #expect(Self.refine(between).map(\.kind) == [.footstep, .other, .footstep, .footstep, .footstep])
    }

    @Test func crowdingDoesNotStopATrain() {
        // Four unsure stomps about 0.7 s apart, each followed 0.2 s later by an impact only 3 dB down.
        var events: [AnalyzedEvent] = []
        for onset in [10.0, 10.72, 11.4, 12.13] {
            events.append(Self.unsure(at: onset, footstep: 0.7))
            events.append(Self.event(at: onset + 0.2, .other, confidence: 0.99, laMax: 57))
        }
        let out = Self.refine(events)
        #expect(out.filter { $0.kind == .footstep }.map(\.onsetSeconds) == [10.0, 10.72, 11.4, 12.13])
    }

    @Test func eventsLeaveAsSoonAsTheirLabelIsSettled() {
        var refiner = GaitContextRefiner()
        var released: [(Double, EventKind)] = []
        let collect = whenSettled { released.append(($0.onsetSeconds, $0.kind)) }
        // A sure footstep leaves at once.
        refiner.add(Self.event(at: 1.0, .footstep, .heelStrike, confidence: 0.95), output: collect)
        refiner.release(knownUntil: 1.1, output: collect)
        #expect(released.map(\.0) == [1.0])
        // An unsure one 3 s later waits for two footsteps' company; sure ones do not wait for it.
        refiner.add(Self.unsure(at: 4.0), output: collect)
        refiner.release(knownUntil: 4.4, output: collect)
        #expect(released.count == 1)
        refiner.add(Self.event(at: 4.5, .footstep, .heelStrike, confidence: 0.95), output: collect)
        refiner.release(knownUntil: 4.6, output: collect)
        #expect(released.map(\.0) == [1.0, 4.5])
        refiner.add(Self.event(at: 5.0, .footstep, .heelStrike, confidence: 0.95), output: collect)
        refiner.release(knownUntil: 5.1, output: collect)
        #expect(released.map(\.0) == [1.0, 4.5, 4.0, 5.0], "company arrived: the unsure one leaves")
        #expect(released.allSatisfy { $0.1 == .footstep })
        // A lone unsure step leaves, as other, once nothing that could make a train or a slow
        // walk with it (3.45 s) can still arrive; a sure step after it leaves first.
        let hold = GaitContextRefiner.holdSeconds(walks: true)
        #expect(abs(hold - 3.45) < 1e-9 && abs(GaitContextRefiner.holdSeconds(walks: false) - 2.4) < 1e-9)
        refiner.add(Self.unsure(at: 9.0), output: collect)
        refiner.add(Self.event(at: 11.0, .footstep, .stomping, confidence: 0.95), output: collect)
        refiner.release(knownUntil: 9.0 + hold, output: collect)
        #expect(released.map(\.0) == [1.0, 4.5, 4.0, 5.0, 11.0])
        refiner.release(knownUntil: 9.0 + hold + 0.01, output: collect)
        #expect(released.count == 6 && released[5] == (9.0, .other))
        // An unsure other is held until a beat, a train or a walk could still come, then stays other.
        refiner.add(Self.event(at: 20.0, .other, confidence: 0.8), output: collect)
        refiner.release(knownUntil: 20.0 + hold, output: collect)
        #expect(released.count == 6)
        refiner.release(knownUntil: 20.0 + hold + 0.01, output: collect)
        #expect(released.count == 7 && released[6] == (20.0, .other))
        // An unsure step with company leaves as soon as it is known: the crowding
        // rule looks at the impacts known by then, so live events are not held
        // back for one that might follow (issue 5's latency).
        refiner.add(Self.event(at: 24.5, .footstep, .heelStrike, confidence: 0.95), output: collect)
        refiner.add(Self.event(at: 25.0, .footstep, .heelStrike, confidence: 0.95), output: collect)
        refiner.add(Self.unsure(at: 25.5), output: collect)
        refiner.release(knownUntil: 25.51, output: collect)
        #expect(released.map(\.0).suffix(3) == [24.5, 25.0, 25.5])
        refiner.add(Self.event(at: 30.0, .other, confidence: 0.5), output: collect)
        refiner.finish(output: collect)
        #expect(released.map(\.0) == [1.0, 4.5, 4.0, 5.0, 11.0, 9.0, 20.0, 24.5, 25.0, 25.5, 30.0])
    }

    @Test func everyEventIsReportedAtOnceAndAHeldOneIsSettledByARevision() {
        // A lone unsure footstep, an `other` a walk will rescue, and the walk: each is
        // reported in the call that adds it (issue 15's live latency), held ones with
        // the classifier's label; each held one then gets exactly one settling revision.
        var refiner = GaitContextRefiner(memory: false)
        var reported: [(onset: Double, kind: EventKind, provisional: Bool)] = []
        var settlements: [TypeRevision] = []
        let collect: (AnalysisOutput) -> Void = {
            switch $0 {
            case let .event(e): reported.append((e.onsetSeconds, e.kind, false))
            case let .provisional(e): reported.append((e.onsetSeconds, e.kind, true))
            case let .revision(r): if r.settles { settlements.append(r) }
            case .levels: break
            }
        }
        let lone = Self.unsure(at: 1.0)
        refiner.add(lone, output: collect)
        refiner.release(knownUntil: 1.0, output: collect)
        #expect(reported.count == 1 && reported[0] == (1.0, .footstep, true))
        let walk = Self.impacts(at: Self.walkOnsets(count: 5, interval: 0.6, from: 10), footstep: [0.6, 0.6, 0.2, 0.6, 0.6])
        for event in walk {
            refiner.add(event, output: collect)
            refiner.release(knownUntil: event.onsetSeconds, output: collect)
            #expect(reported.last?.onset == event.onsetSeconds, "reported in the call that added it")
        }
        #expect(reported.map(\.onset) == [1.0] + walk.map(\.onsetSeconds), "reported in onset order")
        #expect(reported.first { $0.onset == walk[2].onsetSeconds }?.kind == .other, "the classifier's label")
        refiner.finish(output: collect)
        let provisional = reported.filter(\.provisional).map(\.onset)
        #expect(settlements.map(\.onsetSeconds).sorted() == provisional)
        let loneSettled = settlements.first { $0.onsetSeconds == 1.0 }
        #expect(loneSettled?.previousKind == .footstep && loneSettled?.kind == .other && loneSettled?.changesLabel == true)
        let rescued = settlements.first { $0.onsetSeconds == walk[2].onsetSeconds }
        #expect(rescued?.previousKind == .other && rescued?.kind == .footstep)
        #expect(rescued.map { $0.footstepProbability >= GaitContextRefiner.walkProbability } == true)
    }

    @Test func aStepRescuedByTwoLaterStepsLeavesAfterTheFirstOfThem() {
        var refiner = GaitContextRefiner()
        var released: [(Double, EventKind)] = []
        let collect = whenSettled { released.append(($0.onsetSeconds, $0.kind)) }
        // Too unlikely a footstep (0.08) to be in a train, so it need not wait for one.
        refiner.add(Self.event(at: 5.0, .other, confidence: 0.92), output: collect)
        refiner.add(Self.event(at: 5.5, .footstep, .heelStrike, confidence: 0.95), output: collect)
        refiner.release(knownUntil: 5.6, output: collect)
        #expect(released.map(\.0) == [5.5])
        refiner.add(Self.event(at: 6.0, .footstep, .heelStrike, confidence: 0.95), output: collect)
        refiner.release(knownUntil: 6.1, output: collect)
        #expect(released.map(\.0) == [5.5, 5.0, 6.0])
        #expect(released[1].1 == .footstep)
    }

    @Test func aFloodOfEventsIsReleasedEarlyRatherThanDropped() {
        var refiner = GaitContextRefiner()
        var released = 0
        let collect = whenSettled { _ in released += 1 }
        for i in 0..<300 { refiner.add(Self.event(at: Double(i) * 0.001, .other, confidence: 0.9), output: collect) }
        #expect(released == 300 - 128)
        refiner.finish(output: collect)
        #expect(released == 300)
    }

    // MARK: - Walks

    /// A thud's timbre: most energy at 80–250 Hz (dB relative to the bands' total).
    static let thud = EventTimbre(bands: SIMD8(-20, -12, -6, -3, -9, -15, -22, -30))
    /// A snare's: most energy at 1–4 kHz.
    static let snare = EventTimbre(bands: SIMD8(-35, -30, -25, -15, -10, -6, -4, -5))

    /// Impacts the classifier calls `other` with footstep probabilities
    /// `footstep` (cycled) at `onsets`, alike unless `timbres` or `levels` say otherwise.
    static func impacts(
        at onsets: [Double], footstep: [Double], timbres: [EventTimbre]? = nil, levels: [Double]? = nil
    ) -> [AnalyzedEvent] {
        onsets.indices.map { i in
            let p = footstep[i % footstep.count]
            return event(
                at: onsets[i], .other, confidence: 1 - p, footstep: p, laMax: levels?[i] ?? 60,
                timbre: timbres?[i] ?? thud)
        }
    }

    /// A walker's onsets: `count` steps about `interval` apart, each interval a few per cent off.
    static func walkOnsets(count: Int, interval: Double, from start: Double = 10) -> [Double] {
        let jitter = [0.0, 0.03, -0.025, 0.04, -0.035, 0.02, -0.03, 0.035, -0.02, 0.025]
        var onsets = [start]
        for i in 1..<count { onsets.append(onsets[i - 1] + interval * (1 + jitter[i % jitter.count])) }
        return onsets
    }

    /// Footstep probabilities of a walk the classifier doubts: every one `other`, about 0.49 on average.
    static let doubted = [0.35, 0.6, 0.45, 0.55, 0.4, 0.6, 0.5, 0.45]

    @Test func aWalkTheClassifierDoubtsIsAWalk() {
        // Eight alike impacts at 1.9 steps/s, each called `other`; too unsure on average (0.49) for a train.
        let out = Self.refine(Self.impacts(at: Self.walkOnsets(count: 8, interval: 0.53), footstep: Self.doubted))
        #expect(out.count == 8)
        #expect(out.allSatisfy { $0.kind == .footstep })
        #expect(out.allSatisfy { $0.footstepProbability == GaitContextRefiner.walkProbability })
        #expect(out.allSatisfy { $0.type == .heelStrike && $0.confidence == GaitContextRefiner.walkProbability })
    }

    @Test func aSureOtherThatContinuesAWalkIsAStepAtOnce() {
        // The fifth impact is a sure `other` (0.02): not held, it hears only the walk before it.
        var refiner = GaitContextRefiner()
        var released: [AnalyzedEvent] = []
        let collect = whenSettled { released.append($0) }
        let events = Self.impacts(at: Self.walkOnsets(count: 5, interval: 0.5), footstep: [0.6, 0.6, 0.6, 0.6, 0.02])
        for event in events { refiner.add(event, output: collect) }
        refiner.release(knownUntil: events[4].onsetSeconds + 0.01, output: collect)
        #expect(released.map(\.onsetSeconds) == [events[4].onsetSeconds], "released at once, before the held four")
        #expect(released.first?.kind == .footstep)
        // Alone, the same impact leaves at once as `other`.
        var alone = GaitContextRefiner()
        var single: [AnalyzedEvent] = []
        let collectSingle = whenSettled { single.append($0) }
        alone.add(events[4], output: collectSingle)
        alone.release(knownUntil: events[4].onsetSeconds + 0.01, output: collectSingle)
        #expect(single.map(\.kind) == [.other])
    }

    @Test func aSlowWalkOfStompsIsAWalkFromItsFirstStep() {
        // 1.1 s a step: a held impact waits 3.45 s, long enough to hear the fourth step after it.
        let out = Self.refine(Self.impacts(at: Self.walkOnsets(count: 6, interval: 1.1), footstep: [0.5]))
        #expect(out.allSatisfy { $0.kind == .footstep })
        // The first step is still held 2.5 s on (a train's 2.4 s have passed) and leaves as a
        // footstep once the fourth is heard and its hold is over.
        var refiner = GaitContextRefiner()
        var released: [AnalyzedEvent] = []
        let collect = whenSettled { released.append($0) }
        let events = Self.impacts(at: Self.walkOnsets(count: 4, interval: 1.1), footstep: [0.5])
        for event in events.prefix(3) { refiner.add(event, output: collect) }
        refiner.release(knownUntil: events[0].onsetSeconds + 2.5, output: collect)
        #expect(released.isEmpty)
        refiner.add(events[3], output: collect)
        refiner.release(knownUntil: events[0].onsetSeconds + GaitContextRefiner.holdSeconds(walks: true) + 0.01, output: collect)
        #expect(released.first.map { $0.onsetSeconds == events[0].onsetSeconds && $0.kind == .footstep } == true)
    }

    @Test func aMachineExactBeatIsNotAWalk() {
        // A drum machine or a clock: the same thud every 0.5 s to the sample.
        let onsets = (0..<8).map { 10 + Double($0) * 0.5 }
        #expect(Self.refine(Self.impacts(at: onsets, footstep: Self.doubted)).allSatisfy { $0.kind == .other })
    }

    @Test func aWalkNeedsFourAlikeImpactsOfOneLevelThatLeanTowardsSteps() {
        let onsets = Self.walkOnsets(count: 8, interval: 0.6)
        // Three are not enough.
        #expect(Self.refine(Self.impacts(at: Array(onsets.prefix(3)), footstep: [0.5])).allSatisfy { $0.kind == .other })
        // A walk of impacts the classifier hardly hears as steps (0.3 on average) may be a looped beat.
        #expect(Self.refine(Self.impacts(at: onsets, footstep: [0.3])).allSatisfy { $0.kind == .other })
        // A kick and a snare in turn do not sound like one walker's steps.
        let drums = onsets.indices.map { $0 % 2 == 0 ? Self.thud : Self.snare }
        #expect(Self.refine(Self.impacts(at: onsets, footstep: Self.doubted, timbres: drums)).allSatisfy { $0.kind == .other })
        // Every other impact 10 dB louder than the one before it is not one walker either.
        let levels = onsets.indices.map { $0 % 2 == 0 ? 60.0 : 70.0 }
        #expect(Self.refine(Self.impacts(at: onsets, footstep: Self.doubted, levels: levels)).allSatisfy { $0.kind == .other })
        // Impacts without a measured timbre are never a walk.
        let unmeasured = onsets.indices.map { Self.event(at: onsets[$0], .other, confidence: 0.5, footstep: 0.5) }
        #expect(Self.refine(unmeasured).allSatisfy { $0.kind == .other })
    }

    @Test func anUnsureFootstepInAWalkStaysAFootstep() {
        // An unsure footstep 0.9 s from its neighbours, which the classifier calls `other`.
        var events = Self.impacts(at: Self.walkOnsets(count: 6, interval: 0.9), footstep: [0.45])
        events[2] = Self.unsure(at: events[2].onsetSeconds, footstep: 0.52, timbre: Self.thud)
        let out = Self.refine(events)
        #expect(out[2].kind == .footstep && out[2].footstepProbability == GaitContextRefiner.walkProbability)
    }

    /// Sure, typed footsteps (0.97 unless `footstep` says) with `timbre`, at 60 dB: what the memory
    /// remembers, sure enough to need no sure company themselves.
    static func sureSteps(
        at onsets: [Double], footstep: Double = 0.97, timbre: EventTimbre = thud, laMax: Double = 60
    ) -> [AnalyzedEvent] {
        onsets.map { event(at: $0, .footstep, .heelStrike, confidence: 0.85, footstep: footstep, laMax: laMax, timbre: timbre) }
    }

    @Test func aLoneDoubtfulImpactThatSoundsLikeTheSureStepsBeforeItIsAFootstep() {
        // Three sure steps of a walk, then 20 s later one impact alone, called `other` at 0.6.
        let walk = Self.sureSteps(at: [10, 10.5, 11])
        let lone = Self.event(at: 31, .other, confidence: 0.6, footstep: 0.4, timbre: Self.thud)
        let out = Self.refine(walk + [lone], memory: true)
        #expect(out[3].kind == .footstep)
        #expect(out[3].footstepProbability == GaitContextRefiner.memoryProbability)
        #expect(out[3].confidence == GaitContextRefiner.memoryProbability)
        // Without the memory rule (or with two sure steps only) it stays `other`.
        var refiner = GaitContextRefiner(memory: false)
        var released: [AnalyzedEvent] = []
        let collect = whenSettled { released.append($0) }
        for event in walk + [lone] { refiner.add(event, output: collect) }
        refiner.finish(output: collect)
        #expect(released.last?.kind == .other)
        #expect(Self.refine(Array(walk.prefix(2)) + [lone], memory: true).last?.kind == .other)
    }

    @Test func theMemoryRuleNeedsAlikeSoundLevelAndSomeDoubt() {
        let walk = Self.sureSteps(at: [10, 10.5, 11])
        // A snare does not sound like those steps.
        let snare = Self.event(at: 31, .other, confidence: 0.6, footstep: 0.4, timbre: Self.snare)
        #expect(Self.refine(walk + [snare], memory: true).last?.kind == .other)
        // Nor is an impact 15 dB louder one of them.
        let slam = Self.event(at: 31, .other, confidence: 0.6, footstep: 0.4, laMax: 75, timbre: Self.thud)
        #expect(Self.refine(walk + [slam], memory: true).last?.kind == .other)
        // An impact the classifier is sure is not a footstep (0.2) stays `other`.
        let sure = Self.event(at: 31, .other, confidence: 0.8, footstep: 0.2, timbre: Self.thud)
        #expect(Self.refine(walk + [sure], memory: true).last?.kind == .other)
        // Footsteps more than a minute before it are forgotten.
        let late = Self.event(at: 72, .other, confidence: 0.6, footstep: 0.4, timbre: Self.thud)
        #expect(Self.refine(walk + [late], memory: true).last?.kind == .other)
        // Footsteps the classifier doubted (0.7) are not remembered: they are what is in doubt.
        let doubtedWalk = Self.sureSteps(at: [10, 10.5, 11], footstep: 0.7)
        let lone = Self.event(at: 31, .other, confidence: 0.6, footstep: 0.4, timbre: Self.thud)
        #expect(Self.refine(doubtedWalk + [lone], memory: true).last?.kind == .other)
    }

    @Test func theSureStepsAfterADoubtfulImpactWithinItsHoldCount() {
        // The impact comes first; three sure steps follow within its hold (3.45 s).
        let doubtful = Self.event(at: 10, .other, confidence: 0.6, footstep: 0.35, timbre: Self.thud)
        let out = Self.refine([doubtful] + Self.sureSteps(at: [11.2, 12.1, 13.3]), memory: true)
        #expect(out[0].kind == .footstep)
        // Steps after the hold are not waited for.
        let later = Self.refine([doubtful] + Self.sureSteps(at: [13.6, 14.5, 15.4]), memory: true)
        #expect(later[0].kind == .other)
    }

    @Test func anUnsureFootstepAloneStaysAFootstepWhenItSoundsLikeTheSureOnes() {
        let walk = Self.sureSteps(at: [10, 10.5, 11])
        let unsure = Self.unsure(at: 30, footstep: 0.55, timbre: Self.thud)
        let out = Self.refine(walk + [unsure], memory: true)
        #expect(out[3].kind == .footstep)
        #expect(Self.refine([unsure], memory: true).first?.kind == .other)
    }

    /// Feeds `events` one at a time, each with a release just after its onset; returns
    /// what was released after each one (the onsets).
    static func releasesAfterEach(_ events: [AnalyzedEvent]) -> [[Double]] {
        var refiner = GaitContextRefiner()
        var released: [Double] = []
        var steps: [[Double]] = []
        let collect = whenSettled { released.append($0.onsetSeconds) }
        for event in events {
            refiner.add(event, output: collect)
            refiner.release(knownUntil: event.onsetSeconds + 0.01, output: collect)
            steps.append(released)
        }
        return steps
    }

    @Test func aDoubtedFootstepWithoutSureCompanyBecomesOther() {
        // A typed footstep at 0.7, alone: nobody has been heard walking.
        let doubted = Self.event(at: 30, .footstep, .heelStrike, confidence: 0.6, footstep: 0.7, timbre: Self.thud)
        let alone = Self.refine([doubted], memory: true)
        #expect(alone[0].kind == .other && alone[0].type == .unknown && abs(alone[0].confidence - 0.3) < 1e-9)
        // Two sure footsteps in the minute before it: it stays, and leaves at once.
        let sure = Self.sureSteps(at: [10, 10.6])
        #expect(Self.refine(sure + [doubted], memory: true).last?.kind == .footstep)
        #expect(Self.releasesAfterEach(sure + [doubted]).last == [10, 10.6, 30])
        // One sure footstep is not enough, nor are two more than a minute before it.
        #expect(Self.refine(Array(sure.prefix(1)) + [doubted], memory: true).last?.kind == .other)
        #expect(Self.refine(Self.sureSteps(at: [-40, -39.4]) + [doubted], memory: true).last?.kind == .other)
        // Without the memory of sure footsteps the rule is off.
        var refiner = GaitContextRefiner(memory: false)
        var released: [AnalyzedEvent] = []
        let collect = whenSettled { released.append($0) }
        refiner.add(doubted, output: collect)
        refiner.finish(output: collect)
        #expect(released.first?.kind == .footstep)
    }

    @Test func aSureFootstepNeedsNoSureCompany() {
        let sure = Self.event(at: 30, .footstep, .stomping, confidence: 0.9, footstep: 0.95, timbre: Self.thud)
        #expect(Self.refine([sure], memory: true).first?.kind == .footstep)
        #expect(Self.releasesAfterEach([sure]) == [[30]])
    }

    @Test func theDoubtedFirstStepsOfAWalkWaitForTheSureOnesAfterThem() {
        // Two doubted steps, then sure ones: the doubted ones leave once the second sure one is heard.
        let doubted = [10, 10.55].map {
            Self.event(at: $0, .footstep, .heelStrike, confidence: 0.6, footstep: 0.7, timbre: Self.thud)
        }
        let walk = doubted + Self.sureSteps(at: [11.1, 11.65, 12.2])
        let releases = Self.releasesAfterEach(walk)
        #expect(releases[1].isEmpty && releases[2] == [11.1])
        #expect(releases[3] == [11.1, 10, 10.55, 11.65])
        #expect(Self.refine(walk, memory: true).allSatisfy { $0.kind == .footstep })
    }

    @Test func withoutWalksTheSameImpactsStayOther() {
        var refiner = GaitContextRefiner(walks: false)
        var released: [AnalyzedEvent] = []
        let collect = whenSettled { released.append($0) }
        for event in Self.impacts(at: Self.walkOnsets(count: 8, interval: 0.53), footstep: Self.doubted) {
            refiner.add(event, output: collect)
        }
        refiner.finish(output: collect)
        #expect(released.count == 8 && released.allSatisfy { $0.kind == .other })
    }
}
