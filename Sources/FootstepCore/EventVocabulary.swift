/// What kind of impact an event was: a footstep, or other impact noise
/// (door, knock, drop, music, machinery) kept as evidence but never counted
/// as a footstep.
public enum EventKind: String, Sendable, Codable, CaseIterable {
    case footstep
    case other

    /// An event's label as counts, CSVs, the journal and `revised_from` name
    /// it: `type` for a footstep, `other` otherwise.
    public func label(_ type: FootstepType) -> String {
        self == .footstep ? type.rawValue : rawValue
    }
}

/// The footstep types footstepd reports. `unknown` is used when the
/// classifier's confidence is below 0.5 (or before a classifier is loaded).
public enum FootstepType: String, Sendable, Codable, CaseIterable {
    case stomping
    case heelStrike = "heel_strike"
    case shuffling
    case running
    case unknown

    /// The four types a classifier can name (everything but `unknown`).
    public static let classified: [FootstepType] = [.stomping, .heelStrike, .shuffling, .running]
}

/// What a person who listened to an event said of it (`footstepctl events
/// confirm|reject|relabel`). An event nobody reviewed has none.
public enum ReviewVerdict: String, Sendable, Codable, CaseIterable {
    /// It is what its label says (a relabel confirms the new label).
    case confirmed
    /// It is not what its label says ("not a footstep"): kept in the chain and
    /// in exports, marked, and left out of counts, rule checks and charts.
    case rejected
}

/// Which events a listing keeps by their review (`events list --review`).
public enum ReviewState: String, Sendable, Codable, CaseIterable {
    case unreviewed
    case confirmed
    case rejected
}

/// How loud an event was relative to the background, in three steps.
public enum Intensity: String, Sendable, Codable, CaseIterable {
    case low
    case medium
    case high
}

/// The noise-meter bands of the original app, by calibrated dB(A).
public enum LevelBand: String, Sendable, Codable, CaseIterable {
    case silent
    case quiet
    case average
    case noisy
    case loud

    /// silent < 50, quiet < 75, average < 90, noisy < 100, loud >= 100 dB.
    public init(levelDB: Double) {
        switch levelDB {
        case ..<50: self = .silent
        case ..<75: self = .quiet
        case ..<90: self = .average
        case ..<100: self = .noisy
        default: self = .loud
        }
    }
}
