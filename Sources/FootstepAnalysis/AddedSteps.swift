import Glibc
import FootstepDSP

/// The frame step network's own onsets, for the steps it hears where the
/// onset detector found nothing (`FrameEvidence`'s candidates besides the detections).
///
/// An onset is a frame whose probability is at least `threshold` and the
/// highest within `radius` hops (60 ms) either side, unless another such
/// frame lies within `radius` before it (the first of equal maxima counts).
/// Each is measured from the levels of the hops after it while they are at
/// hand (its A- and C-weighted maxima, exposure, peak and length over at
/// most `measuredHops`), then waits here until `FrameEvidence` has heard
/// whether the detector found it and its decision has judged it. An onset whose
/// peak is below the onset detector's `minimumPeakDBFS` is not an impact.
///
/// Storage is reserved in `init`; nothing allocates per hop.
struct AddedSteps {
    /// An onset is the highest probability within this many hops either side.
    static let radius = 6
    /// Hops (0.25 s) an added step's measurements span at most.
    static let measuredHops = 25
    /// Onsets waiting at most; a further one is not added (one every 70 ms for 9 s).
    static let capacity = 128
    /// Hops of levels kept: an onset is found `radius` hops after the
    /// network judged it, which is up to `maximumLookahead` hops behind the
    /// stream.
    static let levelHops = 128

    struct Candidate {
        /// The hop (frame of the network's picture) of the onset.
        var hop: Int
        var probability: Double
        var impact: ImpactEvent
    }

    let threshold: Float
    private let hopFrames: Int
    private let sampleRate: Double
    private let calibrationOffset: Double
    /// Each recent hop's levels (`hop % levelHops`).
    private var levels: [BlockLevels]
    /// The stream's hops so far.
    private var hops = 0
    /// The last frame that was a local maximum at or above the threshold.
    private var lastMaximum = Int.min / 2
    /// Onsets found, in order, waiting for `FrameEvidence`'s decision.
    private(set) var candidates: [Candidate] = []

    init(threshold: Double, hopFrames: Int, sampleRate: Double, calibrationOffset: Double) {
        self.threshold = Float(threshold)
        self.hopFrames = hopFrames
        self.sampleRate = sampleRate
        self.calibrationOffset = calibrationOffset
        levels = [BlockLevels](repeating: BlockLevels(), count: Self.levelHops)
        candidates.reserveCapacity(Self.capacity)
    }

    /// Keeps the levels of the stream's next hop.
    mutating func record(_ hopLevels: BlockLevels) {
        levels[hops % Self.levelHops] = hopLevels
        hops += 1
    }

    /// The onset at `frame`, if it is one, measured against `background`
    /// (Fast A-weighted, calibrated dB), given the network's probabilities
    /// of the frames within `radius` of it (`probabilities[frame %
    /// probabilities.count]`; frames before the stream's start count as
    /// none). Frames must come in order, each once.
    mutating func onset(frame: Int, probabilities: [Float], background: Double) -> Candidate? {
        let ring = probabilities.count
        let p = probabilities[frame % ring]
        guard p >= threshold else { return nil }
        for other in max(0, frame - Self.radius)...(frame + Self.radius) where other != frame {
            if probabilities[other % ring] > p { return nil }
        }
        defer { lastMaximum = frame }
        guard frame - lastMaximum > Self.radius, frame >= hops - Self.levelHops else { return nil }
        let impact = measure(frame, background: background)
        guard impact.peakDBFS >= OnsetDetector.minimumPeakDBFS else { return nil }
        return Candidate(hop: frame, probability: Double(p), impact: impact)
    }

    /// Keeps `candidate` waiting, unless `capacity` are.
    mutating func keep(_ candidate: Candidate) {
        if candidates.count < Self.capacity { candidates.append(candidate) }
    }

    /// Takes the oldest candidate.
    mutating func removeFirst() -> Candidate {
        candidates.removeFirst()
    }

    /// The impact at `hop` as the onset detector would report it, from the
    /// levels of the hops from it to the last of the next `measuredHops` at
    /// least 3 dB over the background (its length).
    private func measure(_ hop: Int, background: Double) -> ImpactEvent {
        var last = hop
        for index in hop..<min(hop + Self.measuredHops, hops) where levels[index % Self.levelHops].lafMax >= background + 3 {
            last = index
        }
        var lafMax = Decibels.floor
        var lcfMax = Decibels.floor
        var peak: Float = 0
        var energy = 0.0
        for index in hop...last {
            let hopLevels = levels[index % Self.levelHops]
            lafMax = max(lafMax, hopLevels.lafMax)
            lcfMax = max(lcfMax, hopLevels.lcfMax)
            peak = max(peak, hopLevels.peak)
            energy += hopLevels.aWeightedEnergy
        }
        let exposure = energy * 2 / sampleRate
        return ImpactEvent(
            onsetFrame: Int64(hop * hopFrames), durationFrames: (last - hop + 1) * hopFrames,
            peakDBFS: 20 * log10(max(Double(peak), 1e-10)), lafMax: lafMax, lcfMax: lcfMax,
            sel: 10 * log10(max(exposure, 1e-20)) + calibrationOffset, backgroundLAF: background,
            strength: 1, detectorConfidence: 0.5, framesSincePreviousOnset: nil)
    }
}
