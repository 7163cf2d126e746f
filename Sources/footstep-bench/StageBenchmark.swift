import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepDSP
import Foundation

/// `footstep-bench stages FILE`: the cost of each analysis stage on one audio
/// file, then the whole offline analysis as `footstepctl analyze` runs it.
///
/// Stages run one after another in this thread on samples decoded into memory
/// once (so that decoding is timed on its own); each is reported as CPU
/// seconds of this thread (stable when other processes load the machine),
/// nanoseconds per sample and x-realtime. The classifier's cost (with the
/// gait context and, when the model has one, the frame step network) is the
/// difference between the pipeline with the model and with
/// `DetectorOnlyClassifier`, per event and as a share of the pipeline; the
/// frame network's and the picture network's shares are the differences
/// with the same model without each.
/// The classifier is then timed alone, best of five passes over the events
/// the detector found (their segments recorded once), with and without its
/// picture network: the figure issue 15's ≤ 150 µs/event aim is checked by.
/// The frame step network's picture and networks of four widths follow,
/// each alone (`frameNetworkStages`).
enum StageBenchmark {
    static func run(arguments: [String]) throws {
        guard let path = arguments.first else {
            print("usage: footstep-bench stages FILE")
            return
        }
        let probe = try AudioFileSource(path: path)
        let format = probe.format
        let expectedFrames = probe.frameCount ?? 0
        probe.close()

        // Decode (timed) into memory, mixed down to mono for the level meter.
        var interleaved: [Float] = []
        interleaved.reserveCapacity(expectedFrames * format.channels)
        let decode = try measure {
            let source = try AudioFileSource(path: path)
            defer { source.close() }
            var buffer = [Float](repeating: 0, count: 4096 * format.channels)
            while true {
                let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
                if frames == 0 { break }
                interleaved.append(contentsOf: buffer[0..<(frames * format.channels)])
            }
        }
        let frames = interleaved.count / format.channels
        let audioSeconds = Double(frames) / Double(format.sampleRate)
        let samples = Double(frames)
        print(String(format: "stage costs on %@ (%.0f s, %@); CPU seconds of one thread", path, audioSeconds, format.description))
        func line(_ stage: String, _ cost: Cost, _ extra: String = "") {
            let name = stage.padding(toLength: 30, withPad: " ", startingAt: 0)
            print(
                "  " + name
                    + String(
                        format: "%7.3f s CPU (%6.3f s wall) %6.2f ns/sample %8.0fx realtime", cost.cpu, cost.wall,
                        cost.cpu / samples * 1e9, audioSeconds / cost.cpu) + extra)
        }
        line("decode (libsndfile)", decode)

        let mono = (0..<frames).map { frame in
            var sum: Float = 0
            for c in 0..<format.channels { sum += interleaved[frame * format.channels + c] }
            return sum / Float(format.channels)
        }
        var meter = LevelMeter(configuration: LevelMeterConfiguration(sampleRate: Double(format.sampleRate)), maximumBlockSize: 160)
        let levels = measure {
            mono.withUnsafeBufferPointer { all in
                var offset = 0
                while offset < all.count {
                    let count = min(160, all.count - offset)
                    _ = meter.process(UnsafeBufferPointer(rebasing: all[offset..<(offset + count)])) { _ in }
                    offset += count
                }
            }
        }
        line("weighting + levels", levels)

        var events = 0
        let detector = try measure { events = try analyse(interleaved, format: format, classifier: DetectorOnlyClassifier()) }
        line("levels + detector", detector, String(format: " (detector %.2f ns/sample, %d events)", (detector.cpu - levels.cpu) / samples * 1e9, events))

        var model = try FootstepModel.bundled()
        let load = try measure { model = try FootstepModel.bundled() }
        print(String(format: "  model load (bundled JSON)      %7.3f s CPU (%6.3f s wall), before any audio", load.cpu, load.wall))
        let full = try measure { _ = try analyse(interleaved, format: format, classifier: try FootstepModelClassifier(model: model)) }
        let classifier = full.cpu - detector.cpu
        line(
            "pipeline with classification", full,
            String(
                format: "\n  classifier, gait context and frame evidence: %.1f µs/event, %.1f %% of the pipeline's time",
                classifier / Double(max(1, events)) * 1e6, 100 * classifier / full.cpu))
        /// CPU seconds the pipeline saves with `change` made to the model.
        func saved(_ change: (inout FootstepModel) -> Void) throws -> Double {
            var reduced = model
            change(&reduced)
            let cost = try measure { _ = try analyse(interleaved, format: format, classifier: try FootstepModelClassifier(model: reduced)) }
            return full.cpu - cost.cpu
        }
        if model.frameNetwork != nil {
            let share = try saved { $0.frameNetwork = nil }
            print(
                String(
                    format: "  of which the frame step network (its picture and network every hop): %.3f s CPU, %.1f µs/event",
                    share, share / Double(max(1, events)) * 1e6))
        }
        if model.network != nil {
            let share = try saved { $0.network = nil }
            print(String(format: "  of which the event's picture and its network: %.1f µs/event", share / Double(max(1, events)) * 1e6))
        }

        // The classifier alone on the events the detector found, each event's
        // segment recorded once: steadier than the difference of two pipelines.
        let recorder = SegmentRecorder()
        _ = try analyse(interleaved, format: format, classifier: recorder)
        func perEvent(_ model: FootstepModel) throws -> Double {
            var classifier = try FootstepModelClassifier(model: model)
            var best = Double.infinity
            for _ in 0..<5 {
                let cost = measure {
                    for event in recorder.events {
                        event.segment.withUnsafeBufferPointer { segment in
                            _ = classifier.classify(
                                event.event, segment: segment, preRollFrames: event.preRollFrames, sampleRate: event.sampleRate)
                        }
                    }
                }
                best = min(best, cost.cpu)
            }
            return best / Double(max(1, recorder.events.count)) * 1e6
        }
        var featuresAlone = model
        featuresAlone.network = nil
        print(
            String(
                format: "  classifier alone on the %d recorded events, best of 5: %.1f µs/event (aim <= 150), without the picture network %.1f µs/event",
                recorder.events.count, try perEvent(model), try perEvent(featuresAlone)))

        try frameNetworkStages(mono, sampleRate: Double(format.sampleRate), pipeline: full.cpu, line: line)

        // The offline analysis as `footstepctl analyze` runs it, on three threads: decode +
        // levels, the onset detector, and (the calling thread) classifier, gait context and
        // frame evidence. On a quiet two-core machine the wall time is about half the CPU
        // time of all three when none of them holds more than half.
        var result: FileAnalysisResult?
        let process0 = processCPUSeconds()
        let file = try measure { result = try FileAnalysis.analyse(path: path, configuration: AnalysisConfiguration()) }
        let all = processCPUSeconds() - process0
        print(
            String(
                format: "  file analysis, three threads: %.3f s wall (%.0fx realtime with classification, %d events); "
                    + "CPU: %.3f s in all, %.3f s of it the calling thread's (classifier), %.3f s the other two's "
                    + "(decode + levels, onset detector)",
                file.wall, audioSeconds / file.wall, result?.events.count ?? 0, all, file.cpu, all - file.cpu))
    }

    /// The frame step network's two parts alone (`FrameEvidence`; the shipped
    /// model may have none): the picture of every hop (formed from the
    /// detector's spectra, so its cost is the detector's analysis with the
    /// picture less the same without it), then networks of the shape
    /// `tools/eval/frame_network.py` trains (a first convolution and six
    /// residual dilated ones) at several widths over those pictures. Their
    /// cost does not depend on their weights.
    static func frameNetworkStages(
        _ mono: [Float], sampleRate: Double, pipeline: Double, line: (String, Cost, String) -> Void
    ) throws {
        let configuration = OnsetDetectorConfiguration(sampleRate: sampleRate)
        let hop = configuration.hopFrames
        var columns: [Float] = []
        columns.reserveCapacity(mono.count / hop * FramePicture.bandCount + FramePicture.bandCount)
        var lowBand = DetectorLowBand(configuration: configuration)
        var detector = try OnsetDetector(configuration: configuration)
        let analysis = measure {
            mono.withUnsafeBufferPointer { all in
                var offset = 0
                while offset + hop <= all.count {
                    let samples = UnsafeBufferPointer(rebasing: all[offset..<(offset + hop)])
                    lowBand.process(samples)
                    _ = detector.process(samples, lowBand: lowBand.samples, levels: BlockLevels())
                    offset += hop
                }
            }
        }
        var picture = try StreamFramePicture(sampleRate: sampleRate)
        let withPicture = measure {
            mono.withUnsafeBufferPointer { all in
                var offset = 0
                while offset + hop <= all.count {
                    columns.append(contentsOf: picture.process(UnsafeBufferPointer(rebasing: all[offset..<(offset + hop)])))
                    offset += hop
                }
            }
        }
        let pictures = Cost(cpu: max(0, withPicture.cpu - analysis.cpu), wall: max(0, withPicture.wall - analysis.wall))
        line(
            "frame picture", pictures,
            String(format: " (%.1f %% of the pipeline's time; detector's analysis alone %.3f s)",
                   100 * pictures.cpu / pipeline, analysis.cpu))
        for channels in [48, 24, 16, 8] {
            var network = FrameStepNetwork(model: .trainedShape(channels: channels, lookahead: 30) { _ in 0 })
            var sum: Float = 0
            let cost = measure {
                columns.withUnsafeBufferPointer { all in
                    var offset = 0
                    while offset + FramePicture.bandCount <= all.count {
                        sum += network.process(UnsafeBufferPointer(rebasing: all[offset..<(offset + FramePicture.bandCount)]))
                        offset += FramePicture.bandCount
                    }
                }
            }
            line(
                "frame network, \(channels) channels", cost,
                String(format: " (%.1f %% of the pipeline's time; mean output %.2f)", 100 * cost.cpu / pipeline,
                       sum / Float(max(1, columns.count / FramePicture.bandCount))))
        }
    }

    struct Cost {
        /// CPU seconds of the calling thread.
        var cpu: Double
        var wall: Double
    }

    static func measure(_ body: () throws -> Void) rethrows -> Cost {
        let cpu0 = threadCPUSeconds()
        let wall0 = DispatchTime.now().uptimeNanoseconds
        try body()
        return Cost(cpu: threadCPUSeconds() - cpu0, wall: Double(DispatchTime.now().uptimeNanoseconds - wall0) / 1e9)
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Whether `output` reports an event (settled or provisional: each event is reported once, as one of them).
    static func isEvent(_ output: AnalysisOutput) -> Bool {
        switch output {
        case .event, .provisional: true
        case .levels, .revision: false
        }
    }

    /// The single-thread pipeline over decoded samples; returns the event count.
    static func analyse<C: EventClassifier>(_ samples: [Float], format: AudioFormat, classifier: consuming C) throws -> Int {
        var pipeline = try AnalysisPipeline(format: format, configuration: AnalysisConfiguration(), classifier: classifier)
        var events = 0
        samples.withUnsafeBufferPointer { all in
            let block = 4096 * format.channels
            var offset = 0
            while offset < all.count {
                let count = min(block, all.count - offset)
                pipeline.process(UnsafeBufferPointer(rebasing: all[offset..<(offset + count)]), frames: count / format.channels) {
                    if isEvent($0) { events += 1 }
                }
                offset += count
            }
            pipeline.finish { if isEvent($0) { events += 1 } }
        }
        return events
    }
}

/// Records every event the pipeline hands the classifier, with a copy of its
/// segment, and labels it as `DetectorOnlyClassifier` does.
final class SegmentRecorder: EventClassifier {
    struct Recorded {
        var event: ImpactEvent
        var segment: [Float]
        var preRollFrames: Int
        var sampleRate: Double
    }

    private(set) var events: [Recorded] = []
    private var labeller = DetectorOnlyClassifier()

    func classify(_ event: ImpactEvent, segment: UnsafeBufferPointer<Float>, preRollFrames: Int, sampleRate: Double) -> Classification {
        events.append(Recorded(event: event, segment: Array(segment), preRollFrames: preRollFrames, sampleRate: sampleRate))
        return labeller.classify(event, segment: segment, preRollFrames: preRollFrames, sampleRate: sampleRate)
    }
}
