/// `FramePicture` of raw 10 ms hops, for tools and tests without a pipeline
/// (the frame network's training pictures): each hop goes through the onset
/// detector's own analysis (`DetectorLowBand`, `OnsetDetector`) for its
/// spectra, as in the pipeline, and the detector's events are dropped. The
/// columns are the pipeline's whatever the detector's tuning: the spectra
/// depend on the sample rate alone.
///
/// All storage is allocated in `init`; `process` does not allocate.
public struct StreamFramePicture: ~Copyable {
    public let hopFrames: Int
    private var lowBand: DetectorLowBand
    private var detector: OnsetDetector
    private var picture: FramePicture

    public init(sampleRate: Double) throws(DSPError) {
        let configuration = OnsetDetectorConfiguration(sampleRate: sampleRate)
        detector = try OnsetDetector(configuration: configuration)
        lowBand = DetectorLowBand(configuration: configuration)
        picture = FramePicture(layout: detector.spectrumLayout)
        hopFrames = configuration.hopFrames
    }

    /// Takes one hop of exactly `hopFrames` samples and returns its column
    /// (`FramePicture.bandCount` values, valid until the next call).
    public mutating func process(_ hop: UnsafeBufferPointer<Float>) -> UnsafeBufferPointer<Float> {
        lowBand.process(hop)
        _ = detector.process(hop, lowBand: lowBand.samples, levels: BlockLevels())
        return picture.process(detector.spectra)
    }
}
