import FootstepDSP

/// The detection stage's first half: the onset detector and, when the model
/// has a frame step network, the stream's picture (`FramePicture`), formed
/// from the detector's own spectra of each hop. It needs nothing of the
/// classifier's, so offline analysis runs it on a thread of its own
/// (`ParallelAnalysisRunner`); `EventStage` takes what it finds.
///
/// Plain synchronous code; buffers are allocated in `init`.
struct OnsetStage: ~Copyable {
    /// What the detector made of one hop besides its events, for `EventStage`.
    struct Hop {
        /// How many events ended in the hop (at most two).
        var eventCount: Int
        /// Every event not yet reported has its onset at or after this frame.
        var earliestUnreportedOnsetFrame: Int64
        /// The detector's Fast A-weighted background level after the hop (dB).
        var background: Double

        static let none = Hop(eventCount: 0, earliestUnreportedOnsetFrame: 0, background: -200)
    }

    /// The most events one hop ends (`EndedEvents`: an onset closes the previous event).
    static let maximumEventsPerHop = 2

    /// The detector (its `history` is the stream `EventStage` cuts segments from).
    private(set) var detector: OnsetDetector
    private var picture: FramePicture?

    var hopFrames: Int { detector.hopFrames }
    /// The samples the detector keeps (a copy for `EventStage` on another
    /// thread keeps as many, to cut the same segments).
    var historyCapacity: Int { detector.history.capacity }

    /// - Parameter picture: whether to form the frame step network's picture.
    init(detectorConfiguration: OnsetDetectorConfiguration, picture: Bool) throws(DSPError) {
        let detector = try OnsetDetector(configuration: detectorConfiguration)
        self.picture = picture ? FramePicture(layout: detector.spectrumLayout) : nil
        self.detector = detector
    }

    /// Analyses one hop with its low band and levels (`LevelStage`): writes
    /// the events that ended in it into `events` (room for
    /// `maximumEventsPerHop`) and, when the stage forms a picture, the hop's
    /// column into `column` (`FramePicture.bandCount` values).
    mutating func process(
        hop: UnsafeBufferPointer<Float>, lowBand: UnsafeBufferPointer<Float>, levels: BlockLevels,
        events: UnsafeMutablePointer<ImpactEvent>, column: UnsafeMutablePointer<Float>
    ) -> Hop {
        var count = 0
        for event in detector.process(hop, lowBand: lowBand, levels: levels) {
            (events + count).initialize(to: event)
            count += 1
        }
        if var picture = picture.take() {
            let values = picture.process(detector.spectra)
            column.update(from: values.baseAddress!, count: values.count)
            self.picture = consume picture
        }
        return Hop(
            eventCount: count, earliestUnreportedOnsetFrame: detector.earliestUnreportedOnsetFrame,
            background: detector.backgroundLAF)
    }

    /// Closes an event still open at the end of the stream: writes it into
    /// `events` (room for `maximumEventsPerHop`) and returns how many it wrote.
    mutating func finish(events: UnsafeMutablePointer<ImpactEvent>) -> Int {
        var count = 0
        for event in detector.finish() {
            (events + count).initialize(to: event)
            count += 1
        }
        return count
    }
}
