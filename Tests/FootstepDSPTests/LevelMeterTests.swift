import Foundation
import Testing

@testable import FootstepDSP

/// Runs `signal` through `meter` in blocks of `blockSize`, collecting intervals and the per-block summaries.
@discardableResult
func run(
    _ meter: inout LevelMeter, _ signal: [Float], blockSize: Int = 160,
    intervals: inout [IntervalLevels], afterBlock: (LevelMeter, BlockLevels) -> Void = { _, _ in }
) -> [BlockLevels] {
    var blocks: [BlockLevels] = []
    signal.withUnsafeBufferPointer { all in
        var start = 0
        while start < all.count {
            let end = min(start + blockSize, all.count)
            let levels = meter.process(UnsafeBufferPointer(rebasing: all[start..<end])) { intervals.append($0) }
            blocks.append(levels)
            afterBlock(meter, levels)
            start = end
        }
    }
    return blocks
}

@Suite struct LevelMeterTests {
    /// A 1 kHz sine at −20 dBFS reads −20 dB + offset on every weighting and detector.
    @Test(arguments: testSampleRates)
    func sineAt1kHzReadsItsLevelOnEveryFigure(sampleRate: Double) {
        let offset = 94.0
        var meter = LevelMeter(
            configuration: .init(sampleRate: sampleRate, intervalSeconds: 10, calibrationOffsetDB: offset),
            maximumBlockSize: 1024)
        let x = TestSignals.sine(frequency: 1000, dBFS: -20, seconds: 10, sampleRate: sampleRate)
        var intervals: [IntervalLevels] = []
        run(&meter, x, blockSize: Int(sampleRate / 100), intervals: &intervals)
        let expected = -20 + offset
        #expect(intervals.count == 1)
        let i = intervals[0]
        for (name, value) in [("LAeq", i.laeq), ("LCeq", i.lceq), ("LZeq", i.lzeq), ("LAFmax", i.lafMax),
                              ("LAFmin", i.lafMin), ("LA10", i.la10), ("LA90", i.la90),
                              ("LAF", meter.currentLAF), ("LCF", meter.currentLCF), ("LAS", meter.currentLAS),
                              ("running LAeq", meter.runningLAeq)] {
            #expect(abs(value - expected) <= 0.1, "\(name) = \(value) at fs \(sampleRate)")
        }
    }

    @Test func fastDecaysAt34_7dBPerSecond() {
        let slope = decaySlope(.fast, burstSeconds: 2, measureFrom: 0.1, to: 0.6)
        #expect(abs(slope - 10 * log10(M_E) / 0.125) < 0.3, "Fast slope \(slope) dB/s")
        #expect(abs(slope - 34.7) < 0.3)
    }

    @Test func slowDecaysAt4_3dBPerSecond() {
        let slope = decaySlope(.slow, burstSeconds: 8, measureFrom: 0.5, to: 3.5)
        #expect(abs(slope - 4.34) < 0.05, "Slow slope \(slope) dB/s")
    }

    /// The decay rate (dB/s, positive) of LAF or LAS after a 1 kHz tone burst stops.
    private func decaySlope(_ weighting: TimeWeighting, burstSeconds: Double, measureFrom t0: Double, to t1: Double) -> Double {
        let fs = 16000.0
        var meter = LevelMeter(configuration: .init(sampleRate: fs), maximumBlockSize: 160)
        let burst = TestSignals.sine(frequency: 1000, dBFS: -10, seconds: burstSeconds, sampleRate: fs)
        let silence = [Float](repeating: 0, count: Int((t1 + 0.5) * fs))
        var intervals: [IntervalLevels] = []
        run(&meter, burst, intervals: &intervals)
        var times: [Double] = []
        var levels: [Double] = []
        var t = 0.0
        run(&meter, silence, intervals: &intervals) { m, _ in
            t += 0.01
            if t >= t0 - 1e-9, t <= t1 + 1e-9 {
                times.append(t)
                levels.append(weighting == .fast ? m.currentLAF : m.currentLAS)
            }
        }
        // Least-squares slope.
        let n = Double(times.count)
        let mt = times.reduce(0, +) / n, ml = levels.reduce(0, +) / n
        var num = 0.0, den = 0.0
        for (ti, li) in zip(times, levels) {
            num += (ti - mt) * (li - ml)
            den += (ti - mt) * (ti - mt)
        }
        return -num / den
    }

    /// 20 % of the time at −10 dBFS, 80 % at −40 dBFS (1 kHz, plus seeded noise far below):
    /// LA10 reads the loud level, LA90 the quiet one, LAeq the energy mean.
    @Test func intervalStatisticsOfATwoLevelSignal() {
        let fs = 16000.0
        var meter = LevelMeter(configuration: .init(sampleRate: fs, intervalSeconds: 60), maximumBlockSize: 512)
        var x: [Float] = []
        for _ in 0..<6 {  // 6 cycles of 2 s loud + 8 s quiet = 60 s
            x += TestSignals.sine(frequency: 1000, dBFS: -10, seconds: 2, sampleRate: fs)
            x += TestSignals.sine(frequency: 1000, dBFS: -40, seconds: 8, sampleRate: fs)
        }
        let noise = TestSignals.noise(amplitude: 1e-4, count: x.count, seed: 42)  // ≈ −77 dBFS
        for i in x.indices { x[i] += noise[i] }
        var intervals: [IntervalLevels] = []
        run(&meter, x, blockSize: 1000, intervals: &intervals)
        #expect(intervals.count == 1)
        guard let i = intervals.first else { return }
        #expect(abs(i.la10 - -10) < 0.1, "LA10 \(i.la10)")
        #expect(abs(i.la90 - -40) < 0.1, "LA90 \(i.la90)")
        #expect(abs(i.lafMax - -10) < 0.1, "LAFmax \(i.lafMax)")
        #expect(abs(i.lafMin - -40) < 0.2, "LAFmin \(i.lafMin)")
        // Energy mean computed here, independently of the meter (A-weighting is 0 dB at 1 kHz).
        let expectedLAeq = 10 * log10(0.2 * pow(10, -10.0 / 10) + 0.8 * pow(10, -40.0 / 10))
        #expect(abs(i.laeq - expectedLAeq) < 0.1, "LAeq \(i.laeq) vs \(expectedLAeq)")
        // ... and against the meter's own weighting filter applied to the whole signal.
        var filter = WeightingFilter(.a, sampleRate: fs)
        var y = [Float](repeating: 0, count: x.count)
        x.withUnsafeBufferPointer { input in y.withUnsafeMutableBufferPointer { filter.process(input, into: $0) } }
        #expect(abs(i.laeq - TestSignals.levelDBFS(y, 0..<y.count)) < 1e-6)
        #expect(abs(i.lzeq - TestSignals.levelDBFS(x, 0..<x.count)) < 1e-6)
    }

    /// 150 s with 60 s intervals: two full intervals while processing, the last 30 s on flush.
    @Test func intervalBoundariesAndFlush() {
        let fs = 16000.0
        var meter = LevelMeter(configuration: .init(sampleRate: fs, intervalSeconds: 60), maximumBlockSize: 512)
        let x = TestSignals.sine(frequency: 1000, dBFS: -30, seconds: 150, sampleRate: fs)
        var intervals: [IntervalLevels] = []
        run(&meter, x, blockSize: 1000, intervals: &intervals)  // blocks straddle the boundaries
        #expect(intervals.count == 2)
        meter.flush { intervals.append($0) }
        #expect(intervals.map(\.startFrame) == [0, 960_000, 1_920_000])
        #expect(intervals.map(\.frames) == [960_000, 960_000, 480_000])
        for i in intervals {
            #expect(abs(i.laeq - -30) < 0.1)
            #expect(abs(i.la90 - -30) < 0.1)
        }
        #expect(meter.framesProcessed == 2_400_000)
        // Nothing left: a second flush emits nothing.
        meter.flush { intervals.append($0) }
        #expect(intervals.count == 3)
    }

    @Test func flushDropsLessThanOneSecond() {
        let fs = 16000.0
        var meter = LevelMeter(configuration: .init(sampleRate: fs, intervalSeconds: 2), maximumBlockSize: 512)
        let x = TestSignals.sine(frequency: 1000, dBFS: -30, seconds: 2.9, sampleRate: fs)
        var intervals: [IntervalLevels] = []
        run(&meter, x, intervals: &intervals)
        meter.flush { intervals.append($0) }
        #expect(intervals.map(\.startFrame) == [0])
        // The next interval starts where the dropped remainder ended.
        run(&meter, TestSignals.sine(frequency: 1000, dBFS: -30, seconds: 2, sampleRate: fs), intervals: &intervals)
        #expect(intervals.map(\.startFrame) == [0, 46_400])
    }

    /// The calibration offset shifts every reported level by exactly the offset.
    @Test func calibrationOffsetShiftsEveryFigure() {
        let fs = 16000.0
        var plain = LevelMeter(configuration: .init(sampleRate: fs, intervalSeconds: 5), maximumBlockSize: 256)
        var calibrated = LevelMeter(
            configuration: .init(sampleRate: fs, intervalSeconds: 5, calibrationOffsetDB: 87.5), maximumBlockSize: 256)
        var x = TestSignals.noise(amplitude: 0.05, count: Int(fs * 7), seed: 3)
        x += TestSignals.sine(frequency: 250, dBFS: -12, seconds: 1, sampleRate: fs)
        var a: [IntervalLevels] = [], b: [IntervalLevels] = []
        let blocksA = run(&plain, x, intervals: &a)
        let blocksB = run(&calibrated, x, intervals: &b)
        plain.flush { a.append($0) }
        calibrated.flush { b.append($0) }
        #expect(a.count == 2 && b.count == 2)
        for (p, c) in zip(a, b) {
            #expect(p.startFrame == c.startFrame && p.frames == c.frames)
            for (x, y) in [(p.laeq, c.laeq), (p.lceq, c.lceq), (p.lzeq, c.lzeq), (p.lafMax, c.lafMax),
                           (p.lafMin, c.lafMin), (p.la10, c.la10), (p.la90, c.la90)] {
                #expect(abs((y - x) - 87.5) < 1e-9)
            }
        }
        for (p, c) in zip(blocksA, blocksB) {
            #expect(abs((c.lafMax - p.lafMax) - 87.5) < 1e-9)
            #expect(abs((c.lcfMax - p.lcfMax) - 87.5) < 1e-9)
            #expect(abs((c.lasMax - p.lasMax) - 87.5) < 1e-9)
            #expect(c.aWeightedEnergy == p.aWeightedEnergy && c.peak == p.peak)
        }
        for (x, y) in [(plain.currentLAF, calibrated.currentLAF), (plain.currentLCF, calibrated.currentLCF),
                       (plain.currentLAS, calibrated.currentLAS), (plain.runningLAeq, calibrated.runningLAeq)] {
            #expect(abs((y - x) - 87.5) < 1e-9)
        }
    }

    @Test func blockSummaryReportsEnergyPeakAndMaxima() {
        let fs = 16000.0
        var meter = LevelMeter(configuration: .init(sampleRate: fs), maximumBlockSize: 100)
        let x = TestSignals.sine(frequency: 1000, dBFS: -6, seconds: 1, sampleRate: fs)
        var intervals: [IntervalLevels] = []
        // One call larger than maximumBlockSize: processed in pieces, summarised once.
        let blocks = run(&meter, x, blockSize: x.count, intervals: &intervals)
        #expect(blocks.count == 1)
        let b = blocks[0]
        #expect(abs(Double(b.peak) - TestSignals.amplitude(dBFS: -6)) < 1e-4)
        #expect(abs(b.lafMax - -6) < 0.1)
        #expect(abs(b.lcfMax - -6) < 0.1)
        #expect(b.lasMax < -6.5)  // Slow is still rising after 1 s (≈ −8 dB)
        // Energy: N · A²/2 for a sine (A-weighting is 0 dB at 1 kHz).
        let expected = Double(x.count) * pow(TestSignals.amplitude(dBFS: -6), 2) / 2
        #expect(abs(b.aWeightedEnergy / expected - 1) < 0.01)
    }

    @Test func silenceReadsTheFloorNeverNaN() {
        var meter = LevelMeter(configuration: .init(sampleRate: 16000, intervalSeconds: 2, calibrationOffsetDB: 30),
                               maximumBlockSize: 160)
        var intervals: [IntervalLevels] = []
        let blocks = run(&meter, [Float](repeating: 0, count: 32000), intervals: &intervals)
        #expect(intervals.count == 1)
        let i = intervals[0]
        for value in [i.laeq, i.lceq, i.lzeq, i.lafMax, i.lafMin, i.la10, i.la90, meter.currentLAF, meter.runningLAeq,
                      blocks.last!.lafMax] {
            #expect(value == Decibels.floor + 30)
        }
    }

    @Test func nanSamplesCountAsSilenceAndDoNotPoisonTheMeter() {
        let fs = 16000.0
        var meter = LevelMeter(configuration: .init(sampleRate: fs, intervalSeconds: 5), maximumBlockSize: 160)
        var x = TestSignals.sine(frequency: 1000, dBFS: -20, seconds: 5, sampleRate: fs)
        x[100] = .nan
        x[200] = .infinity
        var intervals: [IntervalLevels] = []
        run(&meter, x, intervals: &intervals)
        #expect(intervals.count == 1)
        #expect(intervals[0].laeq.isFinite && abs(intervals[0].laeq - -20) < 0.1)
        #expect(abs(meter.currentLAF - -20) < 0.1)
    }

    @Test func invalidConfigurationNamesTheKey() {
        #expect(throws: DSPError.invalidLevelMeterConfiguration(
            parameter: "interval_seconds", value: 0.5, allowed: LevelMeterConfiguration.intervalRange)) {
            try LevelMeterConfiguration(sampleRate: 16000, intervalSeconds: 0.5).validate()
        }
        #expect(throws: DSPError.self) { try LevelMeterConfiguration(sampleRate: .nan).validate() }
        #expect((try? LevelMeterConfiguration(sampleRate: 48000, calibrationOffsetDB: 120).validate()) != nil)
    }

    @Test func histogramPercentilesAreExactForSteadyLevels() {
        var h = LevelHistogram()
        #expect(h.levelExceeded(fraction: 0.1) == nil)
        for _ in 0..<10 { h.add(-12.34) }
        for _ in 0..<90 { h.add(-55.55) }
        #expect(abs(h.levelExceeded(fraction: 0.1)! - -12.34) < 1e-9)
        #expect(abs(h.levelExceeded(fraction: 0.9)! - -55.55) < 1e-9)
        h.add(.nan)
        h.add(1000)
        #expect(h.count == 102)
        h.reset()
        #expect(h.count == 0 && h.levelExceeded(fraction: 0.5) == nil)
    }
}
