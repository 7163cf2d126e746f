import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Foundation
import Testing

/// The onset detector on impacts that overlap: steps of a run whose ringing
/// through a ceiling lasts longer than the time to the next step, and a single
/// impact with a weaker second component (a shuffle's scrape, a knock's rattle).
@Suite("Onset detection of overlapping impacts")
struct DenseImpactDetectionTests {
    static let rate = 16000.0

    /// A thud through a ceiling: a 70 Hz floor mode and a 140 Hz partial with a
    /// 15 ms attack, decaying by 60 dB in `ring` seconds.
    static func thud(ring: Double, amplitude: Double) -> [Float] {
        let count = Int(ring * rate)
        return (0..<count).map { i in
            let t = Double(i) / rate
            let envelope = min(1, t / 0.015) * exp(-6.9 * t / ring)
            return Float(amplitude * envelope * (sin(2 * .pi * 70 * t) + 0.5 * sin(2 * .pi * 140 * t)))
        }
    }

    /// White noise, `impacts` added at their onsets (seconds).
    static func mix(seconds: Double, noise: Double, impacts: [(Double, [Float])], seed: UInt64) -> [Float] {
        var rng = SeededRandom(seed: seed)
        var signal = (0..<Int(seconds * rate)).map { _ in Float(Double.random(in: -noise...noise, using: &rng)) }
        for (onset, sound) in impacts {
            let start = Int(onset * rate)
            for (i, x) in sound.enumerated() where start + i < signal.count { signal[start + i] += x }
        }
        return signal
    }

    static func onsets(of signal: [Float]) throws -> [Double] {
        var pipeline = try AnalysisPipeline(
            format: AudioFormat(sampleRate: Int(rate), channels: 1), configuration: AnalysisConfiguration(),
            classifier: DetectorOnlyClassifier(), maximumBlockFrames: 1600)
        var onsets: [Double] = []
        let collect = { (output: AnalysisOutput) in
            if case .event(let event) = output { onsets.append(event.onsetSeconds) }
            if case .provisional(let event) = output { onsets.append(event.onsetSeconds) }
        }
        signal.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 1600) {
                let block = UnsafeBufferPointer(rebasing: all[start..<min(all.count, start + 1600)])
                pipeline.process(block, frames: block.count, output: collect)
            }
        }
        pipeline.finish(output: collect)
        return onsets
    }

    /// Three bouts of 14 steps at 3.5 per second, each ringing for 0.5 s (so
    /// every step starts while the one before still sounds), 20 dB over the
    /// noise: every step is found. A threshold that learned from the bout's own
    /// frames rose above its later steps (8 of these 42 were lost; on real
    /// recordings through a ceiling, about half of each fast bout).
    @Test func everyStepOfAFastRunThatRingsIntoTheNextIsDetected() throws {
        var steps: [Double] = []
        for bout in 0..<3 {
            for k in 0..<14 { steps.append(3 + Double(bout) * 10 + Double(k) / 3.5) }
        }
        let signal = Self.mix(
            seconds: 35, noise: 0.003, impacts: steps.map { ($0, Self.thud(ring: 0.5, amplitude: 0.1)) }, seed: 7)
        let found = try Self.onsets(of: signal)
        let missed = steps.filter { step in !found.contains { abs($0 - step) <= 0.05 } }
        #expect(missed.isEmpty, "missed \(missed.count) of \(steps.count) steps: \(missed)")
        #expect(found.count <= steps.count + 1, "\(found.count) detections for \(steps.count) steps")
    }

    /// One impact with a second, ten times weaker component 0.2 s later (while
    /// the first still rings) is one event, not two (each was two before the
    /// re-onset rule).
    @Test func aWeakSecondComponentOfAnImpactIsNotASecondOnset() throws {
        var impacts: [(Double, [Float])] = []
        var onsets: [Double] = []
        for n in 0..<10 {
            let onset = 3 + Double(n) * 2.5
            onsets.append(onset)
            impacts.append((onset, Self.thud(ring: 0.6, amplitude: 0.1)))
            impacts.append((onset + 0.2, Self.thud(ring: 0.3, amplitude: 0.03)))
        }
        let signal = Self.mix(seconds: 30, noise: 0.003, impacts: impacts, seed: 8)
        let found = try Self.onsets(of: signal)
        let extra = found.filter { detection in !onsets.contains { abs($0 - detection) <= 0.05 } }
        #expect(extra.isEmpty, "second onsets at \(extra)")
        #expect(onsets.allSatisfy { onset in found.contains { abs($0 - onset) <= 0.05 } }, "found \(found)")
    }

    /// Digital silence with the least significant bits toggling in bursts (a
    /// noise gate opening on nothing, a quiet background high-passed away): no
    /// impacts. Over a floor of nothing each burst rises far; no impact peaks
    /// below two 16-bit steps (`OnsetDetector.minimumPeakDBFS`).
    @Test func theLeastSignificantBitsTogglingInSilenceAreNotImpacts() throws {
        let step: Float = 1 / 32768
        var rng = SeededRandom(seed: 11)
        var signal = [Float](repeating: 0, count: Int(30 * Self.rate))
        for burst in 0..<40 {
            let start = Int((0.5 + 0.7 * Double(burst)) * Self.rate)
            for i in start..<(start + Int(0.15 * Self.rate)) { signal[i] = step * Float(Int.random(in: -1...1, using: &rng)) }
        }
        let found = try Self.onsets(of: signal)
        #expect(found.isEmpty, "\(found.count) impacts in the toggling of the last bit: \(found.prefix(5))")
    }

    /// The minimum costs no quiet impact that is there: thuds peaking at about
    /// −50 dBFS, 5 s apart in digital silence, are each detected once.
    @Test func quietThudsInDigitalSilenceAreStillDetected() throws {
        let onsets = (0..<6).map { 2 + 5 * Double($0) }
        let signal = Self.mix(
            seconds: 32, noise: 0, impacts: onsets.map { ($0, Self.thud(ring: 0.3, amplitude: 0.002)) }, seed: 5)
        let found = try Self.onsets(of: signal)
        let missed = onsets.filter { onset in !found.contains { abs($0 - onset) <= 0.05 } }
        #expect(missed.isEmpty, "missed \(missed) of \(onsets); found \(found)")
        #expect(found.count == onsets.count, "\(found)")
    }
}
