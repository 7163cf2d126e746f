import FootstepCore

/// Everything the synthesizer can render: the four footstep types and the
/// distractors (impacts and sounds that are NOT footsteps). The raw value is
/// the ground-truth `label` string.
public enum SynthesisLabel: String, Sendable, Codable, CaseIterable {
    case stomping
    case heelStrike = "heel_strike"
    case shuffling
    case running
    case doorSlam = "door_slam"
    /// One tap of a knock. A knock of 2-4 taps is planned as 2-4 events, one per tap.
    case knock
    /// An object hitting the floor, including its bounces (one event).
    case objectDrop = "object_drop"
    /// A phrase of sustained tonal bass notes (music through the ceiling).
    case musicBass = "music_bass"
    case chairScrape = "chair_scrape"

    /// The footstep labels in `FootstepType.classified` order.
    public static let footsteps: [SynthesisLabel] = [.stomping, .heelStrike, .shuffling, .running]
    /// The labels that are not footsteps.
    public static let distractors: [SynthesisLabel] = [.doorSlam, .knock, .objectDrop, .musicBass, .chairScrape]

    public var kind: EventKind { footstepType == nil ? .other : .footstep }

    public var footstepType: FootstepType? {
        switch self {
        case .stomping: .stomping
        case .heelStrike: .heelStrike
        case .shuffling: .shuffling
        case .running: .running
        case .doorSlam, .knock, .objectDrop, .musicBass, .chairScrape: nil
        }
    }

    public init?(footstepType: FootstepType) {
        switch footstepType {
        case .stomping: self = .stomping
        case .heelStrike: self = .heelStrike
        case .shuffling: self = .shuffling
        case .running: self = .running
        case .unknown: return nil
        }
    }

    /// Level relative to the scenario SNR when `SynthesisScenario.relativeLevels`
    /// is on (mixed, night, distractors): stomps and door slams louder, shuffles quieter.
    public var relativeLevelDB: Double {
        switch self {
        case .stomping: 6
        case .heelStrike: 0
        case .shuffling: -6
        case .running: -1
        case .doorSlam: 8
        case .knock: 2
        case .objectDrop: 3
        case .musicBass: -3
        case .chairScrape: -2
        }
    }
}

/// The construction between the neighbour's floor and the microphone.
public enum FloorType: String, Sendable, Codable, CaseIterable {
    /// Timber joists and boards: boomy, a 15-30 Hz fundamental plus 40-80 Hz modes.
    case timberJoist = "timber"
    /// Concrete slab: stiffer and heavier, modes between 60 and 200 Hz, shorter ring.
    case concreteSlab = "concrete"
}
