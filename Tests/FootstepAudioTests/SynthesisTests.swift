import FootstepAudio
import FootstepCore
import Foundation
import Testing

@Suite("Footstep synthesizer: streaming, plans and ground truth")
struct SynthesisTests {
    static func scenario(_ name: SynthesisScenario.Name, seed: UInt64 = 1, duration: Double) -> SynthesisScenario {
        var scenario = SynthesisScenario(name, seed: seed)
        scenario.duration = duration
        return scenario
    }

    @Test func sameSamplesWhateverTheReadBlockSizes() throws {
        var stereo = Self.scenario(.night, seed: 5, duration: 25)
        stereo.channels = 2
        stereo.sampleRate = 22050
        for scenario in [Self.scenario(.mixed, duration: 20), stereo] {
            let reference = try SynthesisMeasure.readAll(SyntheticSource(scenario: scenario), blockSizes: [4096])
            let odd = try SynthesisMeasure.readAll(
                SyntheticSource(scenario: scenario), blockSizes: [1, 7, 333, 1024, 5000, 2])
            #expect(reference.count == scenario.frameCount * scenario.channels)
            #expect(reference == odd)
        }
    }

    @Test func seedDecidesEverything() throws {
        let a = try SyntheticSource(scenario: Self.scenario(.mixed, seed: 3, duration: 60))
        let b = try SyntheticSource(scenario: Self.scenario(.mixed, seed: 3, duration: 60))
        let c = try SyntheticSource(scenario: Self.scenario(.mixed, seed: 4, duration: 60))
        #expect(a.groundTruth == b.groundTruth)
        #expect(a.groundTruth != c.groundTruth)
        #expect(a.name == "synthetic:mixed(seed=3)")
    }

    @Test(arguments: [(8000, 1, 10.5), (16000, 2, 3.0), (44100, 1, 1.2345), (96000, 2, 0.5)])
    func frameCountsAreExact(rate: Int, channels: Int, duration: Double) throws {
        var scenario = Self.scenario(.walking, duration: duration)
        scenario.sampleRate = rate
        scenario.channels = channels
        let source = try SyntheticSource(scenario: scenario)
        let expected = Int((duration * Double(rate)).rounded())
        #expect(source.frameCount == expected)
        #expect(source.format == AudioFormat(sampleRate: rate, channels: channels))
        #expect(try SynthesisMeasure.readAll(source, blockSizes: [777]).count == expected * channels)
        var buffer = [Float](repeating: 0, count: 64)
        #expect(try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) } == 0)
    }

    @Test func stereoIsTheSameSignalSlightlyQuieterAndLater() throws {
        var scenario = Self.scenario(.walking, duration: 5)
        scenario.channels = 2
        let x = try SynthesisMeasure.readAll(SyntheticSource(scenario: scenario))
        let left = stride(from: 0, to: x.count, by: 2).map { x[$0] }
        let right = stride(from: 1, to: x.count, by: 2).map { x[$0] }
        let ratio = SynthesisMeasure.meanPower(right[...]) / SynthesisMeasure.meanPower(left[...])
        #expect((-3.0 ... -0.3).contains(10 * log10(ratio)))
        #expect(left != right)
    }

    /// Bout sizes, cadence (±8 % jitter) and spacing, per footstep type.
    @Test(arguments: [
        (SynthesisScenario.Name.walking, "heel_strike", 4...40, 1.6...2.2),
        (.running, "running", 6...30, 2.6...3.6),
        (.shuffling, "shuffling", 3...16, 1.0...1.6),
        (.stomping, "stomping", 2...8, 0.6...1.4),
    ])
    func boutsHaveTheStatedSizesAndCadence(
        name: SynthesisScenario.Name, label: String, steps: ClosedRange<Int>, cadence: ClosedRange<Double>
    ) throws {
        let scenario = Self.scenario(name, seed: 11, duration: 600)
        let truth = try SyntheticSource(scenario: scenario).groundTruth
        #expect(truth.allSatisfy { $0.label == label && $0.kind == .footstep && $0.footstepType?.rawValue == label })
        let bouts = Dictionary(grouping: truth.filter { $0.boutIndex != nil }, by: { $0.boutIndex! })
        #expect(bouts.count >= 5)
        for (_, bout) in bouts {
            #expect(steps.contains(bout.count), "bout of \(bout.count)")
            for (a, b) in zip(bout, bout.dropFirst()) {
                let interval = b.onset - a.onset
                let lowest = 1 / cadence.upperBound * 0.92 - 0.001
                let highest = 1 / cadence.lowerBound * 1.08 + 0.001
                #expect((lowest...highest).contains(interval), "interval \(interval)")
            }
        }
        Self.checkGeneralInvariants(truth, scenario)
    }

    static func checkGeneralInvariants(_ truth: [GroundTruthEvent], _ scenario: SynthesisScenario) {
        for (a, b) in zip(truth, truth.dropFirst()) {
            #expect(b.onset - a.onset >= 0.15 - 1e-9, "onsets \(a.onset) and \(b.onset)")
        }
        for e in truth {
            #expect(e.onset >= 0 && e.onset + e.duration <= scenario.duration + 1e-9)
            #expect(
                abs(e.onset * Double(scenario.sampleRate) - (e.onset * Double(scenario.sampleRate)).rounded()) < 1e-6)
            #expect(e.duration > 0.02 && e.duration < 5)
            #expect(abs(e.levelDBFS - (scenario.backgroundLevelDBFS + e.snrDB)) < 1e-9)
        }
    }

    @Test func mixedHasAllFourTypesInBouts() throws {
        let scenario = Self.scenario(.mixed, seed: 2, duration: 300)
        let truth = try SyntheticSource(scenario: scenario).groundTruth
        #expect(Set(truth.map(\.label)) == Set(FootstepType.classified.map(\.rawValue)))
        Self.checkGeneralInvariants(truth, scenario)
    }

    @Test(arguments: [600.0, 8 * 3600.0])
    func nightHasQuietStretchesAndEveryKindOfEvent(duration: Double) throws {
        let scenario = Self.scenario(.night, seed: 9, duration: duration)
        let truth = try SyntheticSource(scenario: scenario).groundTruth
        let labels = Set(truth.map(\.label))
        for label in ["running", "stomping", "door_slam", "knock", "object_drop"] {
            #expect(labels.contains(label), "no \(label)")
        }
        #expect(labels.contains("heel_strike") || labels.contains("shuffling"))
        let busy = truth.reduce(0.0) { $0 + $1.duration }
        #expect(busy < 0.3 * duration, "events cover \(busy) s of \(duration) s")
        let longestGap = zip(truth, truth.dropFirst()).map { $1.onset - $0.onset }.max() ?? 0
        #expect(longestGap > duration / 40)
        #expect(truth.first!.onset >= 0.04 * duration)
        Self.checkGeneralInvariants(truth, scenario)
    }

    @Test func shortNightsStillWork() throws {
        for duration in [3.0, 20, 90] {
            let scenario = Self.scenario(.night, duration: duration)
            let source = try SyntheticSource(scenario: scenario)
            Self.checkGeneralInvariants(source.groundTruth, scenario)
            #expect(try SynthesisMeasure.readAll(source).count == scenario.frameCount)
        }
    }

    @Test func distractorScenarioHasNoFootsteps() throws {
        let scenario = Self.scenario(.distractors, seed: 4, duration: 300)
        let truth = try SyntheticSource(scenario: scenario).groundTruth
        #expect(!truth.isEmpty)
        #expect(truth.allSatisfy { $0.kind == .other && $0.footstepType == nil && $0.boutIndex == nil })
        #expect(Set(truth.map(\.label)) == Set(SynthesisLabel.distractors.map(\.rawValue)))
        Self.checkGeneralInvariants(truth, scenario)
        #expect(try SyntheticSource(scenario: Self.scenario(.background, duration: 30)).groundTruth.isEmpty)
    }

    @Test func knocksAreTwoToFourTapsEachItsOwnEvent() throws {
        let truth = try SyntheticSource(scenario: Self.scenario(.distractors, seed: 8, duration: 600)).groundTruth
        var runs: [Int] = []
        var previous: GroundTruthEvent?
        for e in truth where e.label == "knock" {
            if let p = previous, e.onset - p.onset < 0.3 { runs[runs.count - 1] += 1 } else { runs.append(1) }
            previous = e
        }
        #expect(!runs.isEmpty)
        #expect(runs.allSatisfy { (2...4).contains($0) }, "\(runs)")
    }

    @Test func groundTruthCSVRoundTrips() throws {
        let truth = try SyntheticSource(scenario: Self.scenario(.night, duration: 300)).groundTruth
        let csv = GroundTruthCSV.write(truth)
        #expect(csv.hasPrefix("onset_s,duration_s,kind,label,level_dbfs,snr_db,bout\n"))
        let back = try GroundTruthCSV.read(csv)
        #expect(back.count == truth.count)
        for (a, b) in zip(truth, back) {
            #expect(abs(a.onset - b.onset) <= 0.0005 && abs(a.snrDB - b.snrDB) <= 0.005)
            #expect(
                a.label == b.label && a.kind == b.kind && a.footstepType == b.footstepType && a.boutIndex == b.boutIndex
            )
        }
        #expect(throws: AudioSourceError.self) { try GroundTruthCSV.read("onset,x\n1,2\n") }
    }

    @Test func scenarioSpecsParseAndBadValuesAreNamed() throws {
        let s = try SynthesisScenario(
            parsing:
                "night:seed=7,duration=28800,snr=12,ceiling=off,floor=concrete,rate=48000,channels=2,bg=pink+hum60@-10")
        #expect(s.name == .night && s.seed == 7 && s.duration == 28800 && s.snrDB == 12 && !s.ceiling)
        #expect(s.floor == .concreteSlab && s.sampleRate == 48000 && s.channels == 2)
        #expect(s.backgrounds == [BackgroundLayer(.pink), BackgroundLayer(.hum60, relativeLevelDB: -10)])
        #expect(try SynthesisScenario(parsing: "walking:bg=none").backgrounds.isEmpty)
        for bad in ["jogging", "walking:rate=4000", "walking:channels=3", "walking:floor=carpet", "walking:colour=red"]
        {
            #expect(throws: AudioSourceError.self, "\(bad)") { try SynthesisScenario(parsing: bad) }
        }
    }
}
