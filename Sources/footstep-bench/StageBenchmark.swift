import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepDSP
import Foundation

/// In-process cost of each analysis stage on one audio file: decode only,
/// decode + levels, decode + levels + detector, the whole pipeline.
/// Printed as seconds, x-realtime and nanoseconds per sample.
@main
struct StageBenchmark {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let path = arguments.first else {
            print("usage: footstep-bench FILE")
            return
        }
        let probe = try AudioFileSource(path: path)
        let format = probe.format
        let audioSeconds = Double(probe.frameCount ?? 0) / Double(format.sampleRate)
        probe.close()
        print(String(format: "stage costs on %@ (%.0f s, %@)", path, audioSeconds, format.description))

        let decode = try measure(path) { source, buffer, frames in }
        report("decode", decode, audioSeconds: audioSeconds, format: format, baseline: nil)

        var meter = LevelMeter(
            configuration: LevelMeterConfiguration(sampleRate: Double(format.sampleRate)), maximumBlockSize: 8192)
        let levels = try measure(path) { _, buffer, frames in
            _ = meter.process(UnsafeBufferPointer(rebasing: buffer[0..<frames])) { _ in }
        }
        report("weighting + levels", levels, audioSeconds: audioSeconds, format: format, baseline: decode)

        var detectorOnly = try AnalysisPipeline(
            format: format, configuration: AnalysisConfiguration(), classifier: DetectorOnlyClassifier())
        var events = 0
        let detector = try measure(path) { _, buffer, frames in
            detectorOnly.process(UnsafeBufferPointer(buffer), frames: frames) { if case .event = $0 { events += 1 } }
        }
        report("levels + detector (\(events) events)", detector, audioSeconds: audioSeconds, format: format, baseline: levels)
    }

    static func measure(
        _ path: String, _ body: (AudioFileSource, UnsafeMutableBufferPointer<Float>, Int) -> Void
    ) throws -> Double {
        let source = try AudioFileSource(path: path)
        defer { source.close() }
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4096 * source.format.channels)
        defer { buffer.deallocate() }
        let start = DispatchTime.now().uptimeNanoseconds
        while true {
            let frames = try source.read(into: buffer)
            if frames == 0 { break }
            body(source, buffer, frames)
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    static func report(_ stage: String, _ seconds: Double, audioSeconds: Double, format: AudioFormat, baseline: Double?) {
        let samples = audioSeconds * Double(format.sampleRate)
        let added = baseline.map { String(format: ", +%.3f s over the previous stage (%.1f ns/sample)", seconds - $0, (seconds - $0) / samples * 1e9) } ?? ""
        print(String(format: "  %-40@ %7.3f s  %8.0fx realtime%@", stage, seconds, audioSeconds / seconds, added))
    }
}
