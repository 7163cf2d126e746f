import FootstepCore

/// A walking or running episode: consecutive footsteps less than
/// `GaitBoutTracker.maximumInterval` apart.
public struct GaitBout: Sendable, Equatable, Codable {
    public enum Gait: String, Sendable, Codable {
        case walking
        case running
    }

    /// Onset of the first step, seconds from the start of the stream.
    public var start: Double
    /// Onset of the last step.
    public var end: Double
    public var steps: Int
    /// Steps per second: (steps − 1) / (end − start).
    public var cadence: Double
    /// The most frequent classified type of its steps (`unknown` if none was classified).
    public var dominantType: FootstepType
    /// Running when most steps are `running` or the cadence is at least 2.5 steps/s.
    public var gait: Gait

    public var duration: Double { end - start }
}

/// Groups footsteps into gait bouts as they arrive, in onset order; a step
/// that arrives after a later one (gait context settles some provisionally
/// reported steps up to 3.45 s late) joins the open bout. Fixed-size state, no allocation.
public struct GaitBoutTracker: Sendable {
    /// Footsteps further apart than this (seconds) start a new bout.
    public static let maximumInterval = 1.5
    /// Cadence (steps/s) from which a bout counts as running whatever its types.
    public static let runningCadence = 2.5

    /// Fewest steps a bout needs to be reported.
    public var minimumSteps: Int
    private var start = 0.0
    private var last = 0.0
    private var steps = 0
    private var counts: (Int, Int, Int, Int) = (0, 0, 0, 0)

    public init(minimumSteps: Int = 2) {
        self.minimumSteps = max(1, minimumSteps)
    }

    /// The bout in progress (nil before the first step, or when it is too short to report).
    public var current: GaitBout? { steps >= minimumSteps ? bout : nil }

    /// Cadence of the bout in progress (0 with fewer than two steps).
    public var currentCadence: Double { steps >= 2 && last > start ? Double(steps - 1) / (last - start) : 0 }

    /// Adds a footstep at `onset` seconds; returns the bout this step closed, if any.
    public mutating func add(onset: Double, type: FootstepType) -> GaitBout? {
        if steps > 0, onset < last {
            start = min(start, onset)
            steps += 1
            count(type)
            return nil
        }
        var closed: GaitBout?
        if steps > 0, onset - last >= Self.maximumInterval {
            closed = current
            steps = 0
        }
        if steps == 0 {
            start = onset
            counts = (0, 0, 0, 0)
        }
        steps += 1
        last = onset
        count(type)
        return closed
    }

    private mutating func count(_ type: FootstepType) {
        switch type {
        case .stomping: counts.0 += 1
        case .heelStrike: counts.1 += 1
        case .shuffling: counts.2 += 1
        case .running: counts.3 += 1
        case .unknown: break
        }
    }

    /// Ends the stream: the open bout, if long enough.
    public mutating func finish() -> GaitBout? {
        defer { steps = 0 }
        return current
    }

    /// Groups a whole list of footsteps (onset seconds, type), in any order.
    public static func bouts(of footsteps: [(onset: Double, type: FootstepType)], minimumSteps: Int = 2) -> [GaitBout] {
        var tracker = GaitBoutTracker(minimumSteps: minimumSteps)
        var bouts: [GaitBout] = []
        for step in footsteps.sorted(by: { $0.onset < $1.onset }) {
            if let bout = tracker.add(onset: step.onset, type: step.type) { bouts.append(bout) }
        }
        if let bout = tracker.finish() { bouts.append(bout) }
        return bouts
    }

    private var bout: GaitBout {
        let ordered: [(FootstepType, Int)] = [
            (.stomping, counts.0), (.heelStrike, counts.1), (.shuffling, counts.2), (.running, counts.3),
        ]
        var dominant = FootstepType.unknown
        var best = 0
        for (type, count) in ordered where count > best {
            dominant = type
            best = count
        }
        let cadence = currentCadence
        let gait: GaitBout.Gait = dominant == .running || cadence >= Self.runningCadence ? .running : .walking
        return GaitBout(start: start, end: last, steps: steps, cadence: cadence, dominantType: dominant, gait: gait)
    }
}
