import Dispatch
import FootstepAudio
import FootstepClassifier
import FootstepDSP
import Foundation
import Synchronization

/// What `ParallelAnalysisRunner.run` reports besides the outputs.
public struct ParallelAnalysisSummary: Sendable {
    /// Frames analysed.
    public var framesProcessed: Int64
    /// A-weighted equivalent level of everything analysed (calibrated dB).
    public var laeq: Double
    /// The error that ended reading early (a truncated or corrupt file), if any;
    /// everything read before it was analysed and reported.
    public var sourceError: AudioSourceError?
}

/// Offline analysis on two threads: a reader thread decodes the source and
/// runs the level stage (EQ, mixdown, level meter, the detector's low band);
/// the calling thread runs the detection stage (onset detector, classifier)
/// on its hops. The two stages are the same code `AnalysisPipeline` runs in
/// one thread, the hops reach the detector in order, and the outputs are the
/// same values in the same order: only the work is spread over two cores.
///
/// Memory is bounded whatever the stream's length: the threads exchange a ring
/// of `slotCount` batches of `hopsPerBatch` hops, allocated up front.
public enum ParallelAnalysisRunner {
    /// Analyses `source` to its end. The source is read only by the reader
    /// thread until `run` returns.
    /// - Throws: `DSPError` when the configuration is invalid (before reading).
    public static func run<Classifier: EventClassifier>(
        _ source: some AudioSource, configuration: AnalysisConfiguration, classifier: consuming Classifier,
        blockFrames: Int = 4096, hopsPerBatch: Int = 64, slotCount: Int = 4,
        output: (AnalysisOutput) -> Void, progress: (Int64) -> Void = { _ in }
    ) throws(DSPError) -> ParallelAnalysisSummary {
        let format = source.format
        var detection = try DetectionStage(
            sampleRate: Double(format.sampleRate), configuration: configuration, classifier: classifier)
        let stage = try LevelStage(
            format: format, configuration: configuration, hopFrames: detection.hopFrames,
            maximumBlockFrames: blockFrames)
        let reader = LevelReader(
            source: source, stage: stage, blockFrames: blockFrames, hopsPerBatch: hopsPerBatch, slotCount: slotCount)
        let thread = Thread { reader.run() }
        thread.name = "footstep-levels"
        thread.start()

        let hopFrames = detection.hopFrames
        var index = 0
        var summary = ParallelAnalysisSummary(framesProcessed: 0, laeq: 0, sourceError: nil)
        while true {
            reader.filled.wait()
            let batch = reader.batches[index]
            var nextInterval = 0
            for hop in 0..<batch.count {
                // Intervals that completed while this hop was metered come first, as in the pipeline.
                while nextInterval < batch.intervals.count, batch.intervals[nextInterval].hop == hop {
                    output(.levels(batch.intervals[nextInterval].levels))
                    nextInterval += 1
                }
                let samples = UnsafeBufferPointer(rebasing: batch.samples[(hop * hopFrames)..<((hop + 1) * hopFrames)])
                let lowStart = hop * batch.lowBandStride
                let lowBand = UnsafeBufferPointer(rebasing: batch.lowBand[lowStart..<(lowStart + batch.lowBandCounts[hop])])
                detection.process(hop: samples, lowBand: lowBand, levels: batch.levels[hop], output: output)
            }
            if batch.ended {
                detection.finish(output: output)
                while nextInterval < batch.intervals.count {
                    output(.levels(batch.intervals[nextInterval].levels))
                    nextInterval += 1
                }
                summary = ParallelAnalysisSummary(
                    framesProcessed: batch.framesProcessed, laeq: batch.laeq, sourceError: batch.failure)
                reader.free.signal()
                break
            }
            progress(batch.framesProcessed)
            reader.free.signal()
            index = (index + 1) % slotCount
        }
        reader.finished.wait()
        return summary
    }
}

/// One batch of metered hops handed from the reader thread to the detector.
private struct HopBatch {
    /// `hopsPerBatch × hopFrames` mono samples.
    var samples: UnsafeMutableBufferPointer<Float>
    /// Each hop's low band at `hop × lowBandStride`, `lowBandCounts[hop]` samples.
    var lowBand: UnsafeMutableBufferPointer<Float>
    var lowBandCounts: UnsafeMutableBufferPointer<Int>
    let lowBandStride: Int
    var levels: UnsafeMutableBufferPointer<BlockLevels>
    var count = 0
    /// Level intervals and the hop during which each completed (`Int.max`: after the last hop).
    var intervals: [(hop: Int, levels: IntervalLevels)] = []
    /// The last batch of the stream.
    var ended = false
    var failure: AudioSourceError?
    var framesProcessed: Int64 = 0
    var laeq = 0.0
}

/// The reader thread's side: source → level stage → batches. Batches are handed
/// over through the semaphores (a wait on `filled` happens after the reader's
/// signal), so their contents need no lock; they live in raw memory because the
/// two threads touch different batches at the same time.
private final class LevelReader: @unchecked Sendable {
    let filled = DispatchSemaphore(value: 0)
    let free: DispatchSemaphore
    let finished = DispatchSemaphore(value: 0)
    let batches: UnsafeMutableBufferPointer<HopBatch>

    private let source: any AudioSource
    private var stage: LevelStage
    private let block: UnsafeMutableBufferPointer<Float>
    private let hopsPerBatch: Int

    init(source: any AudioSource, stage: consuming LevelStage, blockFrames: Int, hopsPerBatch: Int, slotCount: Int) {
        precondition(blockFrames > 0 && hopsPerBatch > 0 && slotCount >= 2)
        self.source = source
        self.hopsPerBatch = hopsPerBatch
        let hopFrames = stage.hopFrames
        let lowBandStride = stage.maximumLowBandSamples
        self.stage = stage
        block = .allocate(capacity: blockFrames * source.format.channels)
        block.initialize(repeating: 0)
        batches = .allocate(capacity: slotCount)
        for i in 0..<slotCount {
            let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: hopsPerBatch * hopFrames)
            samples.initialize(repeating: 0)
            let lowBand = UnsafeMutableBufferPointer<Float>.allocate(capacity: hopsPerBatch * lowBandStride)
            lowBand.initialize(repeating: 0)
            let lowBandCounts = UnsafeMutableBufferPointer<Int>.allocate(capacity: hopsPerBatch)
            lowBandCounts.initialize(repeating: 0)
            let levels = UnsafeMutableBufferPointer<BlockLevels>.allocate(capacity: hopsPerBatch)
            levels.initialize(repeating: BlockLevels())
            var batch = HopBatch(
                samples: samples, lowBand: lowBand, lowBandCounts: lowBandCounts, lowBandStride: lowBandStride, levels: levels)
            batch.intervals.reserveCapacity(8)
            (batches.baseAddress! + i).initialize(to: batch)
        }
        free = DispatchSemaphore(value: slotCount)
    }

    deinit {
        for batch in batches {
            batch.samples.deallocate()
            batch.lowBand.deallocate()
            batch.lowBandCounts.deallocate()
            batch.levels.deallocate()
        }
        batches.deinitialize()
        batches.deallocate()
        block.deallocate()
    }

    /// The reader thread: fills batches in order until the stream ends or fails.
    func run() {
        let hopFrames = stage.hopFrames
        var index = 0
        var batch = batches.baseAddress!
        free.wait()
        batch.pointee.count = 0
        batch.pointee.intervals.removeAll(keepingCapacity: true)
        var failure: AudioSourceError?
        reading: while true {
            let frames: Int
            do {
                frames = try source.read(into: block)
            } catch {
                failure = error
                break
            }
            if frames == 0 { break }
            let samples = stage.prefilter(UnsafeBufferPointer(block), frames: frames)
            var frame = 0
            while true {
                let current = batch
                guard
                    let levels = stage.nextHop(
                        from: samples, frames: frames, at: &frame,
                        interval: { current.pointee.intervals.append((current.pointee.count, $0)) })
                else { break }
                let count = batch.pointee.count
                (batch.pointee.samples.baseAddress! + count * hopFrames)
                    .update(from: stage.hop.baseAddress!, count: hopFrames)
                let lowBand = stage.lowBand
                (batch.pointee.lowBand.baseAddress! + count * batch.pointee.lowBandStride)
                    .update(from: lowBand.baseAddress!, count: lowBand.count)
                batch.pointee.lowBandCounts[count] = lowBand.count
                batch.pointee.levels[count] = levels
                batch.pointee.count = count + 1
                if count + 1 == hopsPerBatch {
                    batch.pointee.framesProcessed = stage.framesProcessed
                    filled.signal()
                    index = (index + 1) % batches.count
                    batch = batches.baseAddress! + index
                    free.wait()
                    batch.pointee.count = 0
                    batch.pointee.intervals.removeAll(keepingCapacity: true)
                }
            }
            continue reading
        }
        let last = batch
        stage.finish { last.pointee.intervals.append((Int.max, $0)) }
        batch.pointee.ended = true
        batch.pointee.failure = failure
        batch.pointee.framesProcessed = stage.framesProcessed
        batch.pointee.laeq = stage.meter.runningLAeq
        filled.signal()
        finished.signal()
    }
}
