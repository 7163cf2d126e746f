/// One event of the plan: everything needed to render it later, nothing rendered yet.
struct PlannedEvent {
    var onsetFrame: Int
    var label: SynthesisLabel
    var style: SoundStyle
    var seed: UInt64
    var snrDB: Double
    var duration: Double
    var boutIndex: Int?
}

/// Plans a scenario's whole event list up front (cheap: no audio). Events are
/// added in time order, at least `minimumSpacing` apart onset to onset, and
/// only if they end before the stream (or the current activity) ends.
struct ScenarioPlanner {
    static let minimumSpacing = 0.15

    /// Cadence ranges (steps per second) and bout sizes per footstep type.
    static let walkingCadence = 1.6...2.2, runningCadence = 2.6...3.6
    static let stompingCadence = 0.6...1.4, shufflingCadence = 1.0...1.6
    static let walkingSteps = 4...40, runningSteps = 6...30, stompingSteps = 2...8, shufflingSteps = 3...16
    /// Relative step-interval jitter inside a bout (±8 %).
    static let cadenceJitter = 0.08

    let scenario: SynthesisScenario
    let transmission: FloorTransmission
    private let sampleRate: Double
    var rng: SynthRandom
    private(set) var events: [PlannedEvent] = []
    private var bouts = 0
    private var lastOnset = -Double.infinity

    init(scenario: SynthesisScenario, transmission: FloorTransmission) {
        self.scenario = scenario
        self.transmission = transmission
        sampleRate = Double(scenario.sampleRate)
        rng = SynthRandom(seed: SynthRandom.derive(scenario.seed, 0x706C_616E))
    }

    static func plan(_ scenario: SynthesisScenario, transmission: FloorTransmission) -> [PlannedEvent] {
        var planner = ScenarioPlanner(scenario: scenario, transmission: transmission)
        planner.planScenario()
        return planner.events
    }

    private mutating func planScenario() {
        let end = scenario.duration
        var t = rng.uniform(0.3, 2)
        switch scenario.name {
        case .background:
            return
        case .night:
            planNight()
            return
        case .walking, .running, .stomping, .shuffling, .mixed:
            while t < end {
                let label: SynthesisLabel
                switch scenario.name {
                case .walking: label = .heelStrike
                case .running: label = .running
                case .stomping: label = .stomping
                case .shuffling: label = .shuffling
                default: label = SynthesisLabel.footsteps[rng.weighted([0.2, 0.35, 0.25, 0.2])]
                }
                let child = label == .running && rng.chance(0.4)
                let style = SoundStyle.random(for: label, rng: &rng, child: child)
                t = footsteps(label, style: style, start: t, limit: end) + rng.uniform(1, 5)
            }
        case .distractors:
            while t < end {
                let label = SynthesisLabel.distractors[rng.weighted([0.25, 0.25, 0.2, 0.15, 0.15])]
                t = distractor(label, start: t, limit: end) + rng.uniform(2, 8)
            }
        }
    }

    /// Adds one event near `time`; returns its end, or nil when it does not fit before `limit`.
    @discardableResult
    mutating func add(
        _ label: SynthesisLabel, style: SoundStyle, at time: Double, boutOffset: Double, bout: Int?, limit: Double
    ) -> Double? {
        let onsetFrame = Int((max(time, lastOnset + Self.minimumSpacing) * sampleRate).rounded(.up))
        let onset = Double(onsetFrame) / sampleRate
        let seed = SynthRandom.derive(scenario.seed, UInt64(events.count) &+ 0x1000)
        let duration = SoundRecipe.make(label, style: style, seed: seed).duration + transmission.durationExtension
        guard onset + duration <= min(limit, scenario.duration) else { return nil }
        let spread = scenario.snrSpreadDB
        var snr = scenario.snrDB + boutOffset + rng.uniform(-spread / 3, spread / 3)
        if scenario.relativeLevels { snr += label.relativeLevelDB + style.levelOffsetDB }
        snr = min(snr, SynthesisScenario.maximumEventLevelDBFS - scenario.backgroundLevelDBFS)
        events.append(
            PlannedEvent(
                onsetFrame: onsetFrame, label: label, style: style, seed: seed, snrDB: snr, duration: duration,
                boutIndex: bout))
        lastOnset = onset
        return onset + duration
    }

    /// A bout offset for the levels of a group of events (±2/3 of the spread).
    mutating func boutOffset() -> Double {
        rng.uniform(-2 * scenario.snrSpreadDB / 3, 2 * scenario.snrSpreadDB / 3)
    }

    /// A bout of `label` steps (or an isolated stomp) starting at `start`. Returns when it ends
    /// (`start` if nothing fitted). A bout cut by `limit` below its minimum size is dropped.
    mutating func footsteps(_ label: SynthesisLabel, style: SoundStyle, start: Double, limit: Double) -> Double {
        let (cadence, steps): (ClosedRange<Double>, ClosedRange<Int>)
        switch label {
        case .running: (cadence, steps) = (Self.runningCadence, Self.runningSteps)
        case .stomping: (cadence, steps) = (Self.stompingCadence, Self.stompingSteps)
        case .shuffling: (cadence, steps) = (Self.shufflingCadence, Self.shufflingSteps)
        default: (cadence, steps) = (Self.walkingCadence, Self.walkingSteps)
        }
        let offset = boutOffset()
        if label == .stomping, rng.chance(0.45) {
            return add(label, style: style, at: start, boutOffset: offset, bout: nil, limit: limit) ?? start
        }
        let rate = rng.uniform(cadence.lowerBound, cadence.upperBound)
        let count = rng.int(steps)
        let before = events.count
        let savedOnset = lastOnset
        var t = start
        var end = start
        for _ in 0..<count {
            guard let e = add(label, style: style, at: t, boutOffset: offset, bout: bouts, limit: limit) else { break }
            end = e
            t += (1 / rate) * (1 + rng.uniform(-Self.cadenceJitter, Self.cadenceJitter))
        }
        if events.count - before < steps.lowerBound {
            events.removeLast(events.count - before)
            lastOnset = savedOnset
            return start
        }
        bouts += 1
        return end
    }

    /// One distractor; a knock is 2-4 taps (one event each). Returns when it ends.
    mutating func distractor(_ label: SynthesisLabel, start: Double, limit: Double) -> Double {
        let style = SoundStyle.random(for: label, rng: &rng)
        let offset = boutOffset()
        guard label == .knock else {
            return add(label, style: style, at: start, boutOffset: offset, bout: nil, limit: limit) ?? start
        }
        let before = events.count
        let savedOnset = lastOnset
        var t = start
        var end = start
        for _ in 0..<rng.int(2...4) {
            guard let e = add(.knock, style: style, at: t, boutOffset: offset, bout: nil, limit: limit) else { break }
            end = e
            t += rng.uniform(0.16, 0.28)
        }
        if events.count - before < 2 {  // a knock cut to one tap by the limit is dropped
            events.removeLast(events.count - before)
            lastOnset = savedOnset
            return start
        }
        return end
    }
}
