import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepDSP
import Foundation

/// The result of analysing one audio file.
public struct FileAnalysisResult: Sendable {
    public var path: String
    public var format: AudioFormat
    public var durationSeconds: Double
    /// In onset order, each with its latest label.
    public var events: [AnalyzedEvent]
    public var intervals: [IntervalLevels]
    /// LAeq over the whole file (calibrated dB).
    public var laeq: Double
    /// Set when reading stopped early (truncated or corrupt part); the events
    /// before that point are still in `events`.
    public var sourceError: AudioSourceError?
    /// Samples that were not finite or out of range, analysed as silence (`SampleSanity`).
    public var invalidSamples: Int = 0

    /// Events per label (footstep type, or `other`).
    public var countsByLabel: [String: Int] {
        events.reduce(into: [:]) { $0[$1.label, default: 0] += 1 }
    }
}

/// Offline analysis of audio files through the same pipeline the daemon runs.
public enum FileAnalysis {
    /// Analyses `source` to its end, decoding and metering on a second thread
    /// (`ParallelAnalysisRunner`; the results are those of `AnalysisPipeline`).
    public static func analyse<Classifier: EventClassifier>(
        source: some AudioSource, configuration: AnalysisConfiguration, classifier: consuming Classifier,
        progress: (Int64) -> Void = { _ in }
    ) throws -> FileAnalysisResult {
        var events: [AnalyzedEvent] = []
        var eventIndex: [Int64: Int] = [:]
        var intervals: [IntervalLevels] = []
        let summary = try ParallelAnalysisRunner.run(
            source, configuration: configuration, classifier: classifier,
            output: { output in
                switch output {
                case let .event(event), let .provisional(event):
                    eventIndex[event.onsetFrame] = events.count
                    events.append(event)
                case let .levels(levels): intervals.append(levels)
                case let .revision(revision):
                    if let index = eventIndex[revision.onsetFrame] { events[index].apply(revision) }
                }
            }, progress: progress)
        let rate = Double(source.format.sampleRate)
        // Events are reported in onset order; each now has its latest label.
        return FileAnalysisResult(
            path: source.name, format: source.format, durationSeconds: Double(summary.framesProcessed) / rate,
            events: events, intervals: intervals, laeq: summary.laeq, sourceError: summary.sourceError,
            invalidSamples: source.invalidSamples)
    }

    /// Measures only the levels of `source` to its end (the level stage: EQ,
    /// mixdown, level meter), in intervals of `levelIntervalSeconds` from its
    /// first frame, the last one partial; `startFrame`s count from that frame.
    public static func levels(source: some AudioSource, configuration: AnalysisConfiguration) throws -> [IntervalLevels] {
        let format = source.format
        let blockFrames = 4096
        var stage = try LevelStage(
            format: format, configuration: configuration,
            hopFrames: configuration.detectorConfiguration(sampleRate: Double(format.sampleRate)).hopFrames,
            maximumBlockFrames: blockFrames)
        var intervals: [IntervalLevels] = []
        var block = [Float](repeating: 0, count: blockFrames * format.channels)
        while true {
            let frames = try block.withUnsafeMutableBufferPointer { try source.read(into: $0) }
            if frames == 0 { break }
            block.withUnsafeBufferPointer { buffer in
                let samples = stage.prefilter(buffer, frames: frames)
                var frame = 0
                while stage.nextHop(from: samples, frames: frames, at: &frame, interval: { intervals.append($0) }) != nil {}
            }
        }
        stage.finish { intervals.append($0) }
        return intervals
    }

    /// Opens and analyses the file at `path` with the trained classifier
    /// (`model`, or the one shipped in FootstepClassifier's resources), at
    /// ``ResamplingSource/analysisSampleRate`` whatever the file's rate.
    /// `progress` counts frames at that rate. The result's `format` is the file's.
    /// - Throws: `ClassifierError` when the model cannot be loaded,
    ///   `AudioSourceError` when the file cannot be opened at all.
    public static func analyse(
        path: String, configuration: AnalysisConfiguration, model: FootstepModel? = nil,
        progress: (Int64, Int?) -> Void = { _, _ in }
    ) throws -> FileAnalysisResult {
        let classifier = try model.map { model throws(ClassifierError) in try FootstepModelClassifier(model: model) }
            ?? FootstepModelClassifier()
        let file = try AudioFileSource(path: path)
        let source = try file.atAnalysisRate()
        defer { source.close() }
        var result = try analyse(
            source: source, configuration: configuration, classifier: classifier,
            progress: { progress($0, source.frameCount) })
        result.path = path
        result.format = file.format
        return result
    }
}
