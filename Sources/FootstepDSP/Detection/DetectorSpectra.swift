/// The onset detector's two spectra of one 10 ms hop, for whoever else
/// wants to look at the stream's spectrum without transforming it again
/// (the frame step network's `FramePicture`): the unnormalised complex
/// outputs (DC … Nyquist) of the detector's Hann-windowed FFTs of
/// - `high`: the last 32 ms of the stream at its own rate;
/// - `low`: the last 128 ms of its low band (`DetectorLowBand`, low-passed
///   at 450 Hz and decimated to about 2 kHz).
///
/// Valid until the detector's next `process`.
public struct DetectorSpectra {
    /// Sizes and rates of the two transforms, fixed by the sample rate.
    public struct Layout: Sendable, Equatable {
        public let highSize: Int
        public let highSampleRate: Double
        public let lowSize: Int
        public let lowSampleRate: Double

        public init(configuration: OnsetDetectorConfiguration) {
            highSize = configuration.fftSize
            highSampleRate = configuration.sampleRate
            lowSampleRate = configuration.sampleRate / Double(DetectorLowBand.decimation(sampleRate: configuration.sampleRate))
            var size = 64
            while Double(size) < lowSampleRate * 0.128 { size *= 2 }
            lowSize = size
        }
    }

    public let high: UnsafeBufferPointer<(Float, Float)>
    public let low: UnsafeBufferPointer<(Float, Float)>
}
