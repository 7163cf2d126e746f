import FootstepAudio
import FootstepCore
import Foundation
import Testing

@Suite("Footstep synthesizer: levels, SNR, transmission, headroom")
struct SynthesisLevelTests {
    /// Measures every event's SNR on the event and background stems independently
    /// and compares it with the ground truth and with the requested SNR.
    @Test(arguments: [
        (SynthesisScenario.Name.walking, 10.0), (.running, 3.0), (.stomping, 20.0), (.shuffling, 0.0), (.mixed, 12.0),
        (.distractors, 15.0),
    ])
    func measuredSNRMatchesTheRequestedOne(name: SynthesisScenario.Name, snr: Double) throws {
        var scenario = SynthesisScenario(name, seed: 21)
        scenario.duration = 40
        scenario.snrDB = snr
        let events = try SyntheticSource(scenario: scenario, layers: .events)
        let eventSamples = try SynthesisMeasure.readAll(events)
        let background = try SynthesisMeasure.readAll(SyntheticSource(scenario: scenario, layers: .background))
        let backgroundPower = SynthesisMeasure.meanPower(background[...])
        #expect(abs(SynthesisMeasure.dBFS(backgroundPower) - scenario.backgroundLevelDBFS) < 0.5)
        #expect(events.groundTruth.count >= 5)
        for e in events.groundTruth {
            let onset = Int((e.onset * Double(scenario.sampleRate)).rounded())
            let power = SynthesisMeasure.eventPower(
                eventSamples, onsetFrame: onset, duration: e.duration, sampleRate: scenario.sampleRate)
            let measured = 10 * log10(power / backgroundPower)
            #expect(abs(measured - e.snrDB) <= 1.5, "\(e.label) at \(e.onset): measured \(measured), truth \(e.snrDB)")
            if !scenario.relativeLevels {
                #expect(abs(e.snrDB - snr) <= scenario.snrSpreadDB + 1e-9)
            }
            // Silence just before the onset: nothing of this event starts early.
            if onset > 16,
                !events.groundTruth.contains(where: { $0.onset < e.onset && $0.onset + $0.duration + 1.5 > e.onset })
            {
                #expect(SynthesisMeasure.meanPower(eventSamples[(onset - 16)..<onset]) < power * 1e-4)
            }
        }
        // The full mix is the sum of the stems.
        let mix = try SynthesisMeasure.readAll(SyntheticSource(scenario: scenario))
        let worst = zip(mix, zip(eventSamples, background)).map { abs($0 - ($1.0 + $1.1)) }.max() ?? 0
        #expect(worst < 1e-6)
    }

    @Test(arguments: SynthesisLabel.allCases)
    func singleEventsHaveTheirOnsetAndLevel(label: SynthesisLabel) {
        for seed in UInt64(0)..<5 {
            let e = FootstepSynthesizer.synthesizeEvent(
                label, seed: seed, sampleRate: 16000, levelDBFS: -32, padding: 0.25)
            #expect(e.onsetFrame == 4000 && e.groundTruth.onset == 0.25)
            #expect(e.samples[0..<e.onsetFrame].allSatisfy { $0 == 0 })
            #expect(e.samples.suffix(4000).allSatisfy { $0 == 0 })
            let power = SynthesisMeasure.eventPower(
                e.samples, onsetFrame: e.onsetFrame, duration: e.groundTruth.duration, sampleRate: 16000)
            #expect(abs(SynthesisMeasure.dBFS(power) + 32) < 0.3, "\(label) seed \(seed)")
            // Sound within 3 ms of the onset (the onset is the contact, not the peak).
            let early = SynthesisMeasure.meanPower(e.samples[e.onsetFrame..<(e.onsetFrame + 48)])
            #expect(early > power * 1e-5, "\(label) seed \(seed): nothing in the first 3 ms")
            #expect(e.samples == FootstepSynthesizer.renderEvent(label, seed: seed, levelDBFS: -32, padding: 0.25))
        }
    }

    /// Through a ceiling, the share of energy above 1 kHz is at least 20 dB lower than direct.
    @Test(arguments: SynthesisLabel.footsteps, FloorType.allCases)
    func ceilingRemovesHighFrequencies(label: SynthesisLabel, floor: FloorType) {
        var direct = 0.0
        var ceiling = 0.0
        for seed in UInt64(0)..<6 {
            let a = FootstepSynthesizer.renderEvent(label, seed: seed, ceiling: false, floor: floor)
            let b = FootstepSynthesizer.renderEvent(label, seed: seed, ceiling: true, floor: floor)
            direct += SynthesisMeasure.energyFraction(above: 1000, a, sampleRate: 16000)
            ceiling += SynthesisMeasure.energyFraction(above: 1000, b, sampleRate: 16000)
        }
        let drop = 10 * log10(direct / ceiling)
        #expect(drop >= 20, "\(label) on \(floor): only \(drop) dB less above 1 kHz")
    }

    @Test(arguments: [SynthesisScenario.Name.mixed, .night, .distractors, .stomping])
    func noClippingAndHeadroomAtHighSNR(name: SynthesisScenario.Name) throws {
        var scenario = SynthesisScenario(name, seed: 31)
        scenario.duration = 90
        scenario.snrDB = 25
        let source = try SyntheticSource(scenario: scenario)
        let x = try SynthesisMeasure.readAll(source)
        let peak = x.reduce(Float(0)) { max($0, abs($1)) }
        #expect(peak < 0.891, "peak \(20 * log10(peak)) dBFS")  // -1 dBFS
        #expect(source.clippedSampleCount == 0 && source.limitedEventCount == 0)
    }

    @Test func rendersMixedFastEnoughForBenchmarks() throws {
        var scenario = SynthesisScenario(.mixed, seed: 1)
        scenario.duration = 60
        let clock = ContinuousClock()
        let elapsed = try clock.measure { _ = try SynthesisMeasure.readAll(SyntheticSource(scenario: scenario)) }
        let speed =
            scenario.duration / (Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds))
        print("synthesizer: mixed at 16 kHz renders \(Int(speed))x real time")
        #expect(speed > 15)  // lenient: shared CI cores; about 100x in a quiet debug build
    }
}
