import FootstepCore
import FootstepDSP

/// Feature rows collected by `FeatureRecordingClassifier` (a reference, so
/// the caller keeps it while the pipeline owns the classifier).
public final class FeatureLog {
    /// One row per event, `EventFeatures.names` order.
    public private(set) var rows: [[Double]] = []
    /// Each row's event as a picture (`EventPicture.values`).
    public private(set) var pictures: [[Float]] = []
    /// Onset of each row, seconds from the start of the stream.
    public private(set) var onsets: [Double] = []

    public init() {}

    func append(_ values: [Double], picture: [Float], onset: Double) {
        rows.append(values)
        pictures.append(picture)
        onsets.append(onset)
    }
}

/// A classifier that records every event's features and picture (for building datasets)
/// and otherwise behaves like `DetectorOnlyClassifier`. Allocates per event;
/// not for the live pipeline.
public struct FeatureRecordingClassifier: EventClassifier {
    public let log: FeatureLog
    private var extractor = EventFeatureExtractor()
    private var picture = EventPicture()

    public init(log: FeatureLog) {
        self.log = log
    }

    public mutating func classify(
        _ event: ImpactEvent, segment: UnsafeBufferPointer<Float>, preRollFrames: Int, sampleRate: Double
    ) -> Classification {
        extractor.extract(event, segment: segment, preRollFrames: preRollFrames, sampleRate: sampleRate)
        picture.compute(segment: segment, sampleRate: sampleRate)
        log.append(extractor.values, picture: picture.values, onset: Double(event.onsetFrame) / sampleRate)
        var fallback = DetectorOnlyClassifier()
        return fallback.classify(event, segment: segment, preRollFrames: preRollFrames, sampleRate: sampleRate)
    }
}
