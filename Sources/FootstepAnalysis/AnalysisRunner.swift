import FootstepAudio
import FootstepClassifier
import FootstepDSP

/// Drives a pipeline from an `AudioSource` until the stream ends.
public enum AnalysisRunner {
    /// Reads `source` to its end through `pipeline`. `progress` gets the
    /// frames processed so far after every block. A source error (a truncated
    /// file, a lost device) is thrown after everything read before it has been
    /// analysed and reported.
    public static func run<Classifier: EventClassifier>(
        _ source: some AudioSource, pipeline: inout AnalysisPipeline<Classifier>, blockFrames: Int = 4096,
        output: (AnalysisOutput) -> Void, progress: (Int64) -> Void = { _ in }
    ) throws(AudioSourceError) {
        var buffer = [Float](repeating: 0, count: blockFrames * source.format.channels)
        var failure: AudioSourceError?
        while true {
            let frames: Int
            do {
                frames = try buffer.withUnsafeMutableBufferPointer { buffer throws(AudioSourceError) in
                    try source.read(into: buffer)
                }
            } catch {
                failure = error
                break
            }
            if frames == 0 { break }
            buffer.withUnsafeBufferPointer { pipeline.process($0, frames: frames, output: output) }
            progress(pipeline.framesProcessed)
        }
        pipeline.finish(output: output)
        if let failure { throw failure }
    }
}
