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

/// Offline analysis on three threads, each a stage of `AnalysisPipeline`:
/// - a reader thread decodes the source and runs the level stage (EQ,
///   mixdown, level meter, the detector's low band);
/// - an onset thread runs `OnsetStage` (the onset detector, and the frame
///   step network's picture when the model has one) on its hops;
/// - the calling thread runs `EventStage` (classifier, gait context, frame
///   step network and its evidence) on what the detector found.
/// The stages are the same code `AnalysisPipeline` runs in one thread, the
/// hops reach each stage in order, and the outputs are the same values in the
/// same order: only the work is spread over the machine's cores.
///
/// Memory is bounded whatever the stream's length: the threads pass a ring of
/// `slotCount` batches of `hopsPerBatch` hops, allocated up front, from one
/// stage to the next (`filled`: reader → onset thread, `detected`: onset
/// thread → calling thread, `free`: calling thread → reader).
public enum ParallelAnalysisRunner {
    /// Analyses `source` to its end. The source is read only by the reader
    /// thread until `run` returns.
    /// - Throws: `DSPError` when the configuration is invalid (before reading).
    public static func run<Classifier: EventClassifier>(
        _ source: some AudioSource, configuration: AnalysisConfiguration, classifier: consuming Classifier,
        blockFrames: Int = 4096, hopsPerBatch: Int = 64, slotCount: Int = 64,
        output: (AnalysisOutput) -> Void, progress: (Int64) -> Void = { _ in }
    ) throws(DSPError) -> ParallelAnalysisSummary {
        let format = source.format
        let sampleRate = Double(format.sampleRate)
        let onsets = try OnsetStage(
            detectorConfiguration: configuration.detectorConfiguration(sampleRate: sampleRate),
            picture: EventStage.usesPicture(configuration: configuration, classifier: classifier))
        let hopFrames = onsets.hopFrames
        var events = EventStage(
            sampleRate: sampleRate, hopFrames: hopFrames, configuration: configuration, classifier: classifier)
        // The calling thread's copy of the stream, as long as the detector's, to cut segments from.
        var history = SampleHistory(minimumCapacity: onsets.historyCapacity)
        let stage = try LevelStage(
            format: format, configuration: configuration, hopFrames: hopFrames, maximumBlockFrames: blockFrames)
        let reader = LevelReader(
            source: source, stage: stage, blockFrames: blockFrames, hopsPerBatch: hopsPerBatch, slotCount: slotCount)
        let detector = OnsetWorker(stage: onsets, reader: reader)
        let readerThread = Thread { reader.run() }
        readerThread.name = "footstep-levels"
        readerThread.start()
        let detectorThread = Thread { detector.run() }
        detectorThread.name = "footstep-onsets"
        detectorThread.start()

        let bands = FramePicture.bandCount
        var index = 0
        var summary = ParallelAnalysisSummary(framesProcessed: 0, laeq: 0, sourceError: nil)
        while true {
            detector.detected.wait()
            let batch = reader.batches[index]
            var nextInterval = 0
            var nextEvent = 0
            for hop in 0..<batch.count {
                // Intervals that completed while this hop was metered come first, as in the pipeline.
                while nextInterval < batch.intervals.count, batch.intervals[nextInterval].hop == hop {
                    output(.levels(batch.intervals[nextInterval].levels))
                    nextInterval += 1
                }
                let detected = batch.detected[hop]
                history.append(UnsafeBufferPointer(rebasing: batch.samples[(hop * hopFrames)..<((hop + 1) * hopFrames)]))
                events.process(
                    events: UnsafeBufferPointer(rebasing: batch.events[nextEvent..<(nextEvent + detected.eventCount)]),
                    detected: detected,
                    column: UnsafeBufferPointer(rebasing: batch.columns[(hop * bands)..<((hop + 1) * bands)]),
                    levels: batch.levels[hop], history: history, output: output)
                nextEvent += detected.eventCount
            }
            if batch.ended {
                events.finish(
                    events: UnsafeBufferPointer(rebasing: batch.events[nextEvent..<(nextEvent + batch.finalEventCount)]),
                    history: history, output: output)
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
        detector.finished.wait()
        return summary
    }
}

/// The onset thread's side: each batch the reader filled → `OnsetStage` →
/// what it found, written into the same batch for the calling thread.
private final class OnsetWorker: @unchecked Sendable {
    let detected = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    private var stage: OnsetStage
    private let reader: LevelReader

    init(stage: consuming OnsetStage, reader: LevelReader) {
        self.stage = stage
        self.reader = reader
    }

    /// The onset thread: batches in order until the one that ends the stream.
    func run() {
        let hopFrames = stage.hopFrames
        let bands = FramePicture.bandCount
        var index = 0
        while true {
            reader.filled.wait()
            let batch = reader.batches.baseAddress! + index
            let samples = batch.pointee.samples
            let lowBand = batch.pointee.lowBand
            let stride = batch.pointee.lowBandStride
            let events = batch.pointee.events.baseAddress!
            var eventCount = 0
            for hop in 0..<batch.pointee.count {
                let lowStart = hop * stride
                let detected = stage.process(
                    hop: UnsafeBufferPointer(rebasing: samples[(hop * hopFrames)..<((hop + 1) * hopFrames)]),
                    lowBand: UnsafeBufferPointer(rebasing: lowBand[lowStart..<(lowStart + batch.pointee.lowBandCounts[hop])]),
                    levels: batch.pointee.levels[hop], events: events + eventCount,
                    column: batch.pointee.columns.baseAddress! + hop * bands)
                batch.pointee.detected[hop] = detected
                eventCount += detected.eventCount
            }
            if batch.pointee.ended {
                batch.pointee.finalEventCount = stage.finish(events: events + eventCount)
                detected.signal()
                break
            }
            detected.signal()
            index = (index + 1) % reader.batches.count
        }
        finished.signal()
    }
}

/// One batch of hops: metered by the reader thread, then detected by the onset thread.
private struct HopBatch {
    /// `hopsPerBatch × hopFrames` mono samples.
    var samples: UnsafeMutableBufferPointer<Float>
    /// Each hop's low band at `hop × lowBandStride`, `lowBandCounts[hop]` samples.
    var lowBand: UnsafeMutableBufferPointer<Float>
    var lowBandCounts: UnsafeMutableBufferPointer<Int>
    let lowBandStride: Int
    var levels: UnsafeMutableBufferPointer<BlockLevels>
    /// Written by the onset thread: what the detector made of each hop, the
    /// events it closed (each hop's `eventCount` in turn, then the last
    /// batch's `finalEventCount`), and each hop's picture column at
    /// `hop × FramePicture.bandCount`.
    var detected: UnsafeMutableBufferPointer<OnsetStage.Hop>
    var events: UnsafeMutableBufferPointer<ImpactEvent>
    var columns: UnsafeMutableBufferPointer<Float>
    var finalEventCount = 0
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
/// signal, and so on down the ring), so their contents need no lock; they live
/// in raw memory because the threads touch different batches at the same time.
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
            let detected = UnsafeMutableBufferPointer<OnsetStage.Hop>.allocate(capacity: hopsPerBatch)
            detected.initialize(repeating: .none)
            // Each hop closes at most two events, and the end of the stream one more.
            let events = UnsafeMutableBufferPointer<ImpactEvent>.allocate(
                capacity: (hopsPerBatch + 1) * OnsetStage.maximumEventsPerHop)
            let columns = UnsafeMutableBufferPointer<Float>.allocate(capacity: hopsPerBatch * FramePicture.bandCount)
            columns.initialize(repeating: 0)
            var batch = HopBatch(
                samples: samples, lowBand: lowBand, lowBandCounts: lowBandCounts, lowBandStride: lowBandStride, levels: levels,
                detected: detected, events: events, columns: columns)
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
            batch.detected.deallocate()
            batch.events.deallocate()
            batch.columns.deallocate()
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
