import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepDSP
import Foundation
import Synchronization

/// Runs source → analysis pipeline (trained classifier, at
/// ``ResamplingSource/analysisSampleRate``) and rolling audio writer and event
/// clips (at the source's own rate) on a dedicated thread (reads block), and hands what
/// comes out (events, level intervals, live meter readings, files, clips) to
/// the service through a locked queue whose capacity is kept, so posting does
/// not allocate in steady state, and wakes the service task when it posts
/// (at most every 20 ms for levels; at once for events, state changes and its
/// end). It never touches SQLite.
///
/// - Note: `start()` once; the other members are safe from any thread.
final class CaptureWorker: @unchecked Sendable {
    struct Settings: Sendable {
        var sessionId: Int64
        var anchor: Date
        var analysis: AnalysisConfiguration
        var audioDirectory: String
        var container: AudioFileContainer
        /// How audio files and clips store samples.
        var encoding: AudioSampleEncoding
        var rollInterval: Double
        var syncInterval: Double
        /// Opens the source again after a device loss; nil for sources that cannot come back.
        var reopen: (@Sendable () throws(AudioSourceError) -> any AudioSource)?
        /// Seconds between audio write retries after a failure.
        var audioRetryInterval: Double = 10
        /// Clips root (`<state>/clips`); clips are written in the session's container.
        var clipDirectory: String
        var clipBefore: Double
        var clipAfter: Double
        /// Re-anchor the session clock to the wall clock at each roll (live devices).
        var reanchorAtRoll: Bool
        /// For a live source whose pace is checked (`CapturePace`): how far, seconds, its
        /// audio may run ahead of the wall clock (what its buffers hold); nil: not checked
        /// (files, the demo, a source a test paces).
        var paceAllowance: Double? = nil
    }

    private let settings: Settings
    /// The classifier's model until the thread has built its classifier from
    /// it; then nil, so the model file's nested form is not kept for the session.
    private let pendingModel: Mutex<FootstepModel?>
    private let wakeup: ServiceWakeup
    private let sourceBox: UncheckedBox<any AudioSource>
    private let reports = Mutex<[CaptureReport]>([])
    private let stopRequested = Atomic<Bool>(false)
    private let pauseRequested = Atomic<Bool>(false)
    private let audioSuspended = Atomic<Bool>(false)
    private let meterWatched = Atomic<Bool>(false)
    private let finishedFlag = Atomic<Bool>(false)
    private let frames = Atomic<Int64>(0)
    private let written = Atomic<Int64>(0)
    private let heartbeatCount = Atomic<Int64>(0)
    let format: AudioFormat

    /// - Parameters:
    ///   - model: The classifier's model; the thread builds its classifier from it.
    ///   - wakeup: Signalled when reports are waiting and when the thread has ended.
    init(source: any AudioSource, settings: Settings, model: FootstepModel, wakeup: ServiceWakeup) {
        self.sourceBox = UncheckedBox(source)
        self.settings = settings
        pendingModel = Mutex(model)
        self.wakeup = wakeup
        self.format = source.format
    }

    /// Frames captured so far.
    var capturedFrames: Int64 { frames.load(ordering: .relaxed) }
    /// Counts the thread's turns: it grows while the thread is alive, with or
    /// without audio (during an outage it turns at least every stall timeout).
    var heartbeat: Int64 { heartbeatCount.load(ordering: .relaxed) }
    /// The session clock: frames analysed (and written, unless audio is suspended).
    var writtenFrames: Int64 { written.load(ordering: .relaxed) }
    /// True once the thread has ended and closed its last file.
    var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }

    func start() {
        let thread = Thread { [self] in self.main() }
        thread.name = "footstepd-pipeline"
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Asks the thread to finish: it flushes the pipeline, closes the file and ends.
    func requestStop() { stopRequested.store(true, ordering: .releasing) }
    /// While paused, frames are read and dropped (no analysis, no audio file).
    func setPaused(_ paused: Bool) { pauseRequested.store(paused, ordering: .releasing) }
    /// While suspended (free disk space below the reserve), audio files are not
    /// written; analysis, events, levels and clips go on.
    func setAudioSuspended(_ suspended: Bool) { audioSuspended.store(suspended, ordering: .releasing) }
    /// While someone watches the live meter, meter readings wake the service
    /// within ``promptReportInterval``; otherwise they wait up to
    /// ``quietReportInterval`` for the service's own timers (events and
    /// revisions always wake it at once).
    func setMeterWatched(_ watched: Bool) { meterWatched.store(watched, ordering: .relaxed) }

    /// The longest a meter reading or level interval waits for the service
    /// while the live meter is watched…
    static let promptReportInterval = Duration.milliseconds(20)
    /// …and while it is not: the capture thread then wakes the service about
    /// once a second instead of once per block of audio.
    static let quietReportInterval = Duration.seconds(1)

    /// Everything reported since the last call, in order.
    func takeReports() -> [CaptureReport] {
        reports.withLock { queue in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }

    /// The classifier made from the pending model, which is released.
    private func takeClassifier() throws(ClassifierError) -> FootstepModelClassifier {
        let model = pendingModel.withLock { pending in
            defer { pending = nil }
            return pending
        }
        guard let model else { preconditionFailure("CaptureWorker.start() called twice") }
        return try FootstepModelClassifier(model: model)
    }

    /// Posts a report that the service handles at once (a file, a clip, a state change).
    private func post(_ report: CaptureReport) {
        reports.withLock { $0.append(report) }
        wakeup.signal()
    }

    private func main() {
        defer {
            finishedFlag.store(true, ordering: .releasing)
            wakeup.signal()
        }
        let source = sourceBox.value
        let format = source.format
        do {
            let writer = try RollingAudioWriter(
                directory: settings.audioDirectory, container: settings.container, encoding: settings.encoding, format: format,
                sessionId: settings.sessionId, anchor: settings.anchor, rollInterval: settings.rollInterval,
                syncInterval: settings.syncInterval)
            let classifier = try takeClassifier()
            // A model without a frame network adds no step late: the clip ring need not wait for one.
            var analysis = settings.analysis
            if classifier.frameNetwork == nil { analysis.frameNetwork = false }
            let feed = try AnalysisRateFeed(captureFormat: format, blockFrames: Self.blockFrames)
            let clips = EventClipRecorder(
                directory: settings.clipDirectory, container: settings.container, encoding: settings.encoding, format: format,
                sessionId: settings.sessionId, before: settings.clipBefore, after: settings.clipAfter,
                maximumDelay: analysis.maximumEventDelay + 1)
            // On the heap: the pipeline is large and noncopyable; the thread's stack stays small.
            let box = PipelineBox(
                try AnalysisPipeline(
                    format: feed.analysisFormat, configuration: analysis, classifier: classifier,
                    maximumBlockFrames: Self.blockFrames))
            loop(pipeline: &box.pipeline, feed: feed, writer: writer, clips: clips, source: source)
        } catch {
            source.close()
            post(.failed(reason: "\(error)"))
        }
    }

    private static let blockFrames = 2048

    /// Reads blocks until a stop, the end of the source or a failure: each block
    /// goes through the pipeline (at the analysis rate, in pieces ending on the
    /// live meter's reading instants), to the audio files and to the clip
    /// recorder (at the capture's rate, the session clock's); what comes out is
    /// batched and posted once per block. A stall or a lost device starts an
    /// outage (a lost device is reopened); the first frame after it ends it.
    private func loop(
        pipeline: inout AnalysisPipeline<FootstepModelClassifier>, feed: AnalysisRateFeed, writer: RollingAudioWriter,
        clips: EventClipRecorder, source initial: any AudioSource
    ) {
        var source = initial
        let format = source.format
        writer.onOpen = { [self] in post(.fileOpened($0)) }
        writer.onClose = { [self] in post(.fileClosed($0)) }
        clips.onClip = { [self] in post(.clip($0)) }
        clips.onError = { [self] in post(.clipFailed(reason: $0)) }
        var tap = LiveLevelTap(sampleRate: feed.analysisFormat.sampleRate)
        var audio = CaptureAudioOutput(
            writer: writer, format: format, directory: settings.audioDirectory,
            retryInterval: settings.audioRetryInterval, reanchorAtRoll: settings.reanchorAtRoll)
        var outage = CaptureOutage(anchorAtFirstFrame: settings.reanchorAtRoll)
        var pace = settings.paceAllowance.map { CapturePace(allowance: $0, sampleRate: format.sampleRate) }
        // A simulated source's own clock (the demo's unplugged microphone) times its outage.
        let streamClock = source as? SimulatedOutageSource
        let anchor = settings.anchor
        func streamEnd() -> Date? {
            streamClock.map { anchor.addingTimeInterval(Double($0.streamFrame) / Double(format.sampleRate)) }
        }
        var health = CaptureHealthReporter()
        var buffer = [Float](repeating: 0, count: Self.blockFrames * format.channels)
        // Session frame of the next frame read (paused frames included).
        var streamFrame: Int64 = 0
        // Frames read while paused or dropped by the device: in the session clock, not in the pipeline's.
        var frameMap = SessionFrameMap(sessionFramesPerPipelineFrame: 1 / feed.ratio)
        // How long the map remembers a skip: past the latest a level interval, an event or a
        // bout's revision can come out of the pipeline after its first frame (a bout longer
        // than half an hour is the exception).
        let memoryFrames = Int64(
            (max(settings.analysis.levelIntervalSeconds, settings.analysis.maximumBoutRevisionDelay) + 1800)
                * Double(feed.analysisFormat.sampleRate))
        var skipping = false
        var batch: [CaptureReport] = []
        batch.reserveCapacity(64)
        // Events and revisions wake the service at once (live subscribers wait for them).
        var batchIsUrgent = false
        var lastSignal = ContinuousClock.now - .seconds(1)

        func handle(_ output: AnalysisOutput) {
            switch output {
            case .event(var event), .provisional(var event):
                event.onsetFrame = frameMap.sessionFrame(ofPipelineFrame: event.onsetFrame)
                let timestamp = writer.time(ofFrame: event.onsetFrame)
                let provisional = if case .provisional = output { true } else { false }
                batch.append(.event(event, timestamp: timestamp, provisional: provisional))
                batchIsUrgent = true
                clips.request(onsetFrame: event.onsetFrame, onsetTime: timestamp)
            case var .levels(levels):
                levels.startFrame = frameMap.sessionFrame(ofPipelineFrame: levels.startFrame)
                levels.frames = Int(frameMap.sessionLength(ofPipelineFrames: Int64(levels.frames)))
                batch.append(.levels(levels, startedAt: writer.time(ofFrame: levels.startFrame)))
            case var .revision(revision):
                revision.onsetFrame = frameMap.sessionFrame(ofPipelineFrame: revision.onsetFrame)
                batch.append(.revision(revision))
                batchIsUrgent = true
            }
        }

        // Runs analysis-rate frames through the pipeline, in pieces ending on the live meter's reading instants.
        func analyse(_ samples: UnsafeBufferPointer<Float>, frames count: Int) {
            let channels = format.channels
            var done = 0
            while done < count {
                let piece = min(count - done, Self.blockFrames, tap.framesUntilDue(processed: pipeline.framesProcessed))
                pipeline.process(
                    UnsafeBufferPointer(rebasing: samples[(done * channels)..<((done + piece) * channels)]), frames: piece
                ) { handle($0) }
                done += piece
                let processed = pipeline.framesProcessed
                if let reading = tap.take(from: pipeline.meter, processed: processed) {
                    let time = writer.time(ofFrame: frameMap.sessionFrame(ofPipelineFrame: processed))
                    batch.append(.level(laf: reading.laf, laeq: reading.laeq, time: time))
                }
            }
        }

        capture: while !stopRequested.load(ordering: .acquiring) {
            heartbeatCount.add(1, ordering: .relaxed)
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBufferPointer { (buffer) throws(AudioSourceError) in
                    try source.read(into: buffer)
                }
            } catch {
                switch (error, settings.reopen) {
                case (.stalled, _):
                    // The device is open and being read: the audio resumes on a later read.
                    outage.begin(reason: "\(error)", writer: writer, clips: clips, streamClock: streamClock != nil).map(post)
                    continue capture
                case let (.deviceLost, .some(reopen)):
                    // The capture thread has ended and closed the device: open it again.
                    outage.begin(reason: "\(error)", writer: writer, clips: clips).map(post)
                    health.replacing(source)
                    source.close()
                    guard let reopened = reconnect(reopen) else { break capture }
                    guard reopened.format == format else {
                        // The session's files, clips and clock are at the first format: a device that comes back
                        // at another one ends it, and the service starts the next session at the new one.
                        post(.failed(reason: "\(reopened.name) came back as \(reopened.format), the session records \(format)"))
                        reopened.close()
                        break capture
                    }
                    source = reopened
                    continue capture
                default:
                    post(.failed(reason: "\(error)"))
                    break capture
                }
            }
            if count > 0, pace != nil, !checkPace(&pace!, frames: count, source: source, outage: &outage, writer: writer, clips: clips) {
                continue capture
            }
            outage.read(
                frames: count, sampleRate: format.sampleRate, writer: writer, sessionStart: settings.anchor,
                streamEnd: streamEnd()
            ).map(post)
            if count == 0 { break }
            frames.add(Int64(count), ordering: .relaxed)
            health.check(source, post: post)
            let lost = source.framesLostBeforeLastRead
            if lost > 0 {
                // A hole in the stream: the clock skips it, so what follows keeps its true time.
                let from = writer.time(ofFrame: writer.sessionFrame)
                writer.skip(frames: lost)
                frameMap.skip(Int64(lost), beforePipelineFrame: feed.nextAnalysisFrame)
                streamFrame += Int64(lost)
                if !skipping { post(.dropped(frames: lost, from: from, to: writer.time(ofFrame: writer.sessionFrame))) }
            }
            let pausing = pauseRequested.load(ordering: .acquiring)
            if pausing != skipping {
                // Where the pause begins or ends on the recording's clock: the service stores it as a gap.
                skipping = pausing
                let at = writer.time(ofFrame: streamFrame)
                post(pausing ? .paused(at: at) : .resumed(at: at))
            }
            if pausing {
                // The clock runs on (the frames were captured); the file ends and
                // a new one starts on resume.
                writer.skip(frames: count)
                frameMap.skip(Int64(count), beforePipelineFrame: feed.nextAnalysisFrame)
                streamFrame += Int64(count)
                written.store(writer.sessionFrame, ordering: .relaxed)
                continue
            }
            buffer.withUnsafeBufferPointer { samples in
                feed.feed(samples, frames: count) { analyse($0, frames: $1) }
                audio.write(samples, frames: count, suspend: audioSuspended.load(ordering: .acquiring), post: post)
                // Below the disk reserve no audio is written, clips included (they are
                // audio too: a walk writes several seconds of clip per second).
                if audio.suspended {
                    clips.discardPending()
                } else {
                    clips.append(samples, frames: count, at: streamFrame)
                }
            }
            streamFrame += Int64(count)
            written.store(writer.sessionFrame, ordering: .relaxed)
            frameMap.forget(before: pipeline.framesProcessed - memoryFrames)
            if !batch.isEmpty {
                reports.withLock { $0.append(contentsOf: batch) }
                batch.removeAll(keepingCapacity: true)
                // Events and revisions at once; meter readings and level intervals at most
                // every 20 ms while the meter is watched (a fast file would wake it per
                // block), otherwise with the service's own timers.
                let now = ContinuousClock.now
                let interval =
                    meterWatched.load(ordering: .relaxed) ? Self.promptReportInterval : Self.quietReportInterval
                if batchIsUrgent || now - lastSignal >= interval {
                    wakeup.signal()
                    lastSignal = now
                }
                batchIsUrgent = false
            }
        }
        feed.drain { analyse($0, frames: $1) }
        pipeline.finish { handle($0) }
        if let report = outage.endAtStop(streamClock: streamClock != nil) { batch.append(report) }
        if !batch.isEmpty { reports.withLock { $0.append(contentsOf: batch) } }
        clips.flushPending()
        do { try writer.close() } catch { post(.audioWriteFailed(reason: "\(error)", at: writer.time(ofFrame: writer.sessionFrame))) }
        source.close()
    }

    /// Whether a read of `count` frames from a live source may be recorded: not while
    /// its audio runs ahead of the wall clock (an outage begins, `CapturePace`), nor
    /// until it has kept time again and the wall clock has passed the audio already
    /// recorded. Discarded audio is read at most at the wall clock's pace, so a source
    /// gone wild does not take a core.
    private func checkPace(
        _ pace: inout CapturePace, frames count: Int, source: any AudioSource, outage: inout CaptureOutage,
        writer: RollingAudioWriter, clips: EventClipRecorder
    ) -> Bool {
        let now = Date()
        if outage.isOutOfTime {
            let stream = count + source.framesLostBeforeLastRead
            if pace.keptTime(frames: stream), now >= writer.time(ofFrame: writer.sessionFrame) {
                pace.reset()
                return true
            }
            let wait = pace.discardWait(frames: count)
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            return false
        }
        let audioEnd = writer.time(ofFrame: writer.sessionFrame + Int64(count))
        guard outage.current == nil, pace.isAhead(audioEnd: audioEnd, now: now, sessionStart: settings.anchor) else {
            return true
        }
        let ahead = audioEnd.timeIntervalSince(now)
        pace.reset()
        outage.beginOutOfTime(
            reason: "the source's audio ran \(String(format: "%.1f", ahead)) s ahead of the wall clock", now: now,
            writer: writer, clips: clips
        ).map(post)
        return false
    }

    /// Retries opening the device with backoff (0.1 s doubling to 0.5 s, so it
    /// resumes within about half a second of the device returning) until it
    /// opens or a stop is requested.
    private func reconnect(_ reopen: @Sendable () throws(AudioSourceError) -> any AudioSource) -> (any AudioSource)? {
        var delay = 0.1
        while !stopRequested.load(ordering: .acquiring) {
            heartbeatCount.add(1, ordering: .relaxed)
            Thread.sleep(forTimeInterval: delay)
            if let source = try? reopen() { return source }
            delay = min(delay * 2, 0.5)
        }
        return nil
    }
}

/// Owns the pipeline for the capture thread.
final class PipelineBox {
    var pipeline: AnalysisPipeline<FootstepModelClassifier>
    init(_ pipeline: consuming AnalysisPipeline<FootstepModelClassifier>) { self.pipeline = pipeline }
}

/// Moves a non-Sendable value to the thread that will own it.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
