@testable import FootstepAnalysis
import FootstepDSP
import Foundation
import Testing

/// The frame step network's own onsets (`AddedSteps`): which frames are
/// onsets, and how an onset is measured from the levels after it.
@Suite struct AddedStepsTests {
    /// The onsets among `values` (frame: probability) over hops whose peak is `peak`.
    static func onsets(_ values: [Int: Float], frames: Int = 80, threshold: Double = 0.5, peak: Float = 0.01) -> [Int] {
        var probabilities = [Float](repeating: 0, count: 1024)
        for (frame, p) in values { probabilities[frame] = p }
        var steps = AddedSteps(threshold: threshold, hopFrames: 160, sampleRate: 16_000, calibrationOffset: 0)
        var found: [Int] = []
        for frame in 0..<frames {
            steps.record(BlockLevels(peak: peak))
            let judged = frame - AddedSteps.radius
            if judged >= 0, steps.onset(frame: judged, probabilities: probabilities, background: -60) != nil {
                found.append(judged)
            }
        }
        return found
    }

    @Test func anOnsetIsTheFirstHighestFrameWithin60MsAboveTheThreshold() {
        let found = Self.onsets([
            1: 0.2, 2: 0.6, 3: 0.6, 4: 0.3,  // a plateau: its first frame
            20: 0.9, 24: 0.7,  // a lower frame within 6 of a higher one is not an onset
            40: 0.55, 45: 0.55,  // two equal maxima 5 frames apart: the first
            52: 0.55,  // 7 frames after the last maximum: an onset
            60: 0.45,  // below the threshold
        ])
        #expect(found == [2, 20, 40, 52])
    }

    /// In digital silence, or where only the least significant bits toggle
    /// (a peak of one 16-bit step, −90.3 dBFS), the network's onsets are not
    /// impacts; at two steps (the detector's `minimumPeakDBFS`) they are.
    @Test func anOnsetWhosePeakIsBelowTheDetectorsMinimumIsNotAnImpact() {
        let values: [Int: Float] = [10: 0.9, 30: 0.8]
        #expect(Self.onsets(values, peak: 0).isEmpty)
        #expect(Self.onsets(values, peak: 1 / 32768).isEmpty)
        #expect(Self.onsets(values, peak: 2 / 32768) == [10, 30])
        #expect(abs(OnsetDetector.minimumPeakDBFS - 20 * log10(2.0 / 32768)) < 0.01)
    }

    @Test func anOnsetIsMeasuredFromTheLevelsOfTheHopsAfterIt() throws {
        var probabilities = [Float](repeating: 0, count: 1024)
        probabilities[10] = 0.8
        var steps = AddedSteps(threshold: 0.5, hopFrames: 160, sampleRate: 16_000, calibrationOffset: 30)
        var onset: AddedSteps.Candidate?
        for hop in 0..<40 {
            // 40 dB over the -60 dB background for hops 10-14, then 1 dB over it.
            let loud = (10..<15).contains(hop)
            let level = loud ? -20.0 : -59.0
            steps.record(BlockLevels(lafMax: level, lcfMax: level + 6, lasMax: level, aWeightedEnergy: loud ? 1 : 0, peak: loud ? 0.5 : 0.001))
            if hop >= 10 + AddedSteps.radius, onset == nil {
                onset = steps.onset(frame: 10, probabilities: probabilities, background: -60)
            }
        }
        let impact = try #require(onset).impact
        #expect(impact.onsetFrame == 1_600)
        #expect(impact.durationFrames == 5 * 160, "to the last hop 3 dB over the background")
        #expect(impact.lafMax == -20 && impact.lcfMax == -14 && impact.backgroundLAF == -60)
        #expect(abs(impact.peakDBFS - 20 * log10(0.5)) < 1e-9)
        // Exposure: 5 hops of unit energy at 16 kHz, doubled as the detector does, plus the offset.
        let exposure: Double = 10 * log10(5.0 * 2 / 16_000) + 30
        #expect(abs(impact.sel - exposure) < 1e-9)
    }
}
