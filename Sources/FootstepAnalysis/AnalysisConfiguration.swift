import FootstepDSP

/// Everything the analysis pipeline needs besides the stream format.
public struct AnalysisConfiguration: Sendable, Equatable {
    /// Seconds per level interval (LAeq, LAFmax, LA90… rows), default 60.
    public var levelIntervalSeconds: Double = 60
    /// dBFS → dB SPL offset from calibration (0 = uncalibrated, relative levels).
    public var calibrationOffsetDB: Double = 0
    /// Detector sensitivity: lower finds fainter impacts (`OnsetDetectorConfiguration.threshold`).
    public var detectorThreshold = OnsetDetectorConfiguration(sampleRate: 16000).threshold
    /// Shortest time between two onsets, seconds (`OnsetDetectorConfiguration.minimumInterOnsetInterval`).
    public var minimumInterOnsetInterval = OnsetDetectorConfiguration(sampleRate: 16000).minimumInterOnsetInterval
    /// Optional parametric EQ before analysis, per channel (empty = off).
    public var equalizer: [[EQBand]] = []
    /// Audio before the onset handed to the classifier, seconds.
    public var segmentPreRoll: Double = 0.05
    /// Audio after the onset handed to the classifier, seconds.
    public var segmentLength: Double = 0.5
    /// Revise the classifier's labels with the neighbouring impacts in view
    /// (`GaitContextRefiner`: an impact on the beat of footsteps is a
    /// footstep, a lone unsure footstep is not). An event whose label the
    /// neighbours may change is reported at once with the classifier's label
    /// and settled when they have been heard: up to 3.45 s later with walks,
    /// 2.4 s without.
    public var gaitContext = true
    /// With gait context: count a regular walk of alike impacts as
    /// footsteps whatever the classifier says of each (`GaitContextRefiner`'s
    /// walk rule). Off only to measure what the rule adds.
    public var walks = true
    /// With gait context: judge doubtful impacts by the footsteps the
    /// classifier was sure of in the minute around them (`GaitContextRefiner`'s
    /// memory and sure-company rules). Off only to measure what they change.
    public var memory = true
    /// Let the model's frame step network, when it has one, revise the labels
    /// (`FrameEvidence`: its decision makes a detection a footstep or `other`
    /// from the evidence within 2 s, and adds the steps the network hears
    /// where the detector found none). A settled event it has not judged yet
    /// is reported at once and settled once it has (about 7 s later); an
    /// added step is reported once every detection and footstep around it has
    /// been. Off only to measure what it changes.
    public var frameNetwork = true
    /// Below this confidence a footstep's type is `unknown` (the classifier's
    /// own rule is 0.5; a higher value asks for surer types).
    public var minimumConfidence = 0.5

    public init() {}

    /// The longest time, seconds, from an impact's onset to the pipeline
    /// reporting its event: the detector's report delay (gait context reports
    /// an event it holds at once, provisionally; its settling revision comes
    /// up to `maximumSettlementDelay` later), or with the frame network the
    /// wait before a step it adds (`FrameEvidence.maximumDelay`). Events then
    /// leave out of onset order, an added step after the detections around it.
    public var maximumEventDelay: Double {
        frameNetwork ? max(reportDelay, FrameEvidence.maximumDelay(settledDelay: gaitSettlementDelay)) : reportDelay
    }

    /// The longest time, seconds, from an impact's onset to the revision that
    /// settles its provisional report: the gait context's hold, or the frame
    /// network's wait (`FrameEvidence.maximumSettlementDelay`: its
    /// look-ahead, the decision's window, and the revisions queued before it)
    /// when that is longer; none with neither.
    public var maximumSettlementDelay: Double {
        frameNetwork
            ? max(gaitSettlementDelay, FrameEvidence.maximumSettlementDelay(settledDelay: gaitSettlementDelay))
            : gaitSettlementDelay
    }

    /// The detector's report delay, seconds (it does not depend on the sample rate).
    var reportDelay: Double { detectorConfiguration(sampleRate: 16_000).maximumReportDelay }

    /// The longest time, seconds, from an impact's onset until the gait
    /// context has settled its event: the detector's report delay and the
    /// gait context's hold.
    var gaitSettlementDelay: Double {
        reportDelay + (gaitContext ? GaitContextRefiner.holdSeconds(walks: walks) : 0)
    }

    /// The longest time, seconds, from a bout's last footstep's onset to the
    /// revision that names its steps' types again from the whole bout: the
    /// bout ends `boutGap` after it, once no event can still join it
    /// (`BoutRevisionStage`; a model without a bout typer makes none).
    public var maximumBoutRevisionDelay: Double {
        guard gaitContext else { return 0 }
        return maximumEventDelay + Self.boutGap + boutRevisionHold
    }

    /// How long, seconds, after the detector's horizon has passed a bout's
    /// end (`boutGap` after its last step) the bout reviser waits before it
    /// types the bout: the longest an event or the revision that settles it
    /// can take to leave the frame evidence after its onset
    /// (`maximumSettlementDelay`), and at least the gait context's hold and
    /// crowding gap.
    var boutRevisionHold: Double {
        max(GaitContextRefiner.holdSeconds(walks: walks) + GaitContextRefiner.crowdingGap, maximumSettlementDelay)
    }

    /// Footsteps less than this many seconds apart are one bout (`BoutReviser.boutGap`).
    public static var boutGap: Double { BoutReviser.boutGap }

    /// How much of the stream before a footstep its type depends on,
    /// seconds: its bout (at most `BoutReviser.maximumBoutSteps` steps, each
    /// less than `boutGap` after the one before: 96 s) and the footsteps of
    /// the `BoutTyping.referenceSeconds` (5 min) before it, which tell a stomp
    /// from the walker's ordinary steps. The minute of sure footsteps the
    /// gait context compares a doubtful impact with lies within it.
    public static var typingContextSeconds: Double {
        BoutTyping.referenceSeconds + Double(BoutReviser.maximumBoutSteps) * BoutReviser.boutGap
    }

    func detectorConfiguration(sampleRate: Double) -> OnsetDetectorConfiguration {
        var configuration = OnsetDetectorConfiguration(sampleRate: sampleRate)
        configuration.threshold = detectorThreshold
        configuration.minimumInterOnsetInterval = minimumInterOnsetInterval
        configuration.calibrationOffsetDB = calibrationOffsetDB
        return configuration
    }
}
