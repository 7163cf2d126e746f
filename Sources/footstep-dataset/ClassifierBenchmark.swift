import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import Foundation

/// Cost of the model classifier: the same rendered scenario analysed with
/// `DetectorOnlyClassifier` and with `FootstepModelClassifier`.
enum ClassifierBenchmark {
    static func run(seconds: Double) throws {
        var scenario = SynthesisScenario(.mixed, seed: 77)
        scenario.duration = seconds
        // Render once into memory so that synthesis is not timed.
        let source = try SyntheticSource(scenario: scenario)
        var samples = [Float](repeating: 0, count: scenario.frameCount)
        var filled = 0
        while filled < samples.count {
            let read = try samples.withUnsafeMutableBufferPointer { buffer in
                try source.read(into: UnsafeMutableBufferPointer(rebasing: buffer[filled...]))
            }
            if read == 0 { break }
            filled += read
        }
        let format = source.format
        func time<C: EventClassifier>(_ classifier: consuming C) throws -> (Double, Int) {
            var pipeline = try AnalysisPipeline(format: format, configuration: AnalysisConfiguration(), classifier: classifier)
            var events = 0
            let start = DispatchTime.now().uptimeNanoseconds
            samples.withUnsafeBufferPointer { buffer in
                var offset = 0
                while offset < filled {
                    let count = min(4096, filled - offset)
                    pipeline.process(UnsafeBufferPointer(rebasing: buffer[offset..<(offset + count)]), frames: count) {
                        if case .event = $0 { events += 1 }
                    }
                    offset += count
                }
                pipeline.finish { if case .event = $0 { events += 1 } }
            }
            return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, events)
        }
        _ = try time(DetectorOnlyClassifier())  // warm-up
        let (baseline, events) = try time(DetectorOnlyClassifier())
        let (withModel, _) = try time(try FootstepModelClassifier())
        let perEvent = (withModel - baseline) / Double(max(1, events)) * 1e6
        print(
            String(
                format: "%.0f s of audio, %d events: pipeline %.3f s (%.0fx realtime) without, %.3f s (%.0fx realtime) with the model classifier: +%.1f %%, %.1f µs per event",
                seconds, events, baseline, seconds / baseline, withModel, seconds / withModel,
                100 * (withModel - baseline) / baseline, perEvent))
    }
}
