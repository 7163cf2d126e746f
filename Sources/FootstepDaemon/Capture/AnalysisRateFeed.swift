import FootstepAudio

/// Brings captured audio to the analysis rate (``ResamplingSource/analysisSampleRate``)
/// for the pipeline, while the audio files and clips keep the capture's own rate.
/// At the analysis rate it passes the samples through untouched.
///
/// - Note: Capture thread only. Its buffer is allocated once, for blocks of at
///   most `blockFrames` frames.
final class AnalysisRateFeed {
    let analysisFormat: AudioFormat
    private let resampler: StreamResampler?
    private var output: [Float]
    /// Captured frames fed so far.
    private var fedFrames: Int64 = 0

    /// - Throws: `AudioSourceError.invalidParameter` when libsoxr cannot convert the capture's rate.
    init(captureFormat: AudioFormat, blockFrames: Int) throws(AudioSourceError) {
        analysisFormat = AudioFormat(sampleRate: ResamplingSource.analysisSampleRate, channels: captureFormat.channels)
        if captureFormat.sampleRate == analysisFormat.sampleRate {
            resampler = nil
            output = []
        } else {
            let resampler = try StreamResampler(
                from: captureFormat.sampleRate, to: analysisFormat.sampleRate, channels: captureFormat.channels)
            self.resampler = resampler
            output = [Float](
                repeating: 0, count: resampler.outputCapacity(forInputFrames: blockFrames) * captureFormat.channels)
        }
    }

    /// Analysis frames per captured frame (session frames are captured frames).
    var ratio: Double { resampler?.ratio ?? 1 }

    /// The analysis frame at which the next captured frame will begin: where a
    /// skip in the capture lies on the pipeline's clock, whatever the converter
    /// still holds.
    var nextAnalysisFrame: Int64 {
        resampler == nil ? fedFrames : Int64((Double(fedFrames) * ratio).rounded())
    }

    /// Converts `frames` captured frames and hands the result to `body`, in one
    /// or more pieces (none while the converter is filling up).
    func feed(
        _ samples: UnsafeBufferPointer<Float>, frames: Int, _ body: (UnsafeBufferPointer<Float>, Int) -> Void
    ) {
        fedFrames += Int64(frames)
        guard let resampler else {
            body(samples, frames)
            return
        }
        let channels = analysisFormat.channels
        var done = 0
        while done < frames {
            let (used, made) = output.withUnsafeMutableBufferPointer { output in
                resampler.convert(UnsafeBufferPointer(rebasing: samples[(done * channels)...]), frames: frames - done, into: output)
            }
            if made > 0 { output.withUnsafeBufferPointer { body($0, made) } }
            if used == 0, made == 0 { break }
            done += used
        }
    }

    /// Hands the converter's last frames to `body` at the end of the capture.
    func drain(_ body: (UnsafeBufferPointer<Float>, Int) -> Void) {
        guard let resampler else { return }
        while true {
            let made = output.withUnsafeMutableBufferPointer { resampler.drain(into: $0) }
            if made == 0 { return }
            output.withUnsafeBufferPointer { body($0, made) }
        }
    }
}
