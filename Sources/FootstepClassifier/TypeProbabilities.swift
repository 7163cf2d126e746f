import FootstepCore

/// How the event model shares a footstep between the four types: each
/// type's probability given that the impact is a footstep (they sum to 1).
/// Bout typing weighs them with the bout's rhythm and levels.
public struct TypeProbabilities: Sendable, Equatable, Codable {
    public var stomping: Double
    public var heelStrike: Double
    public var shuffling: Double
    public var running: Double

    /// No preference: a quarter each (a classifier that does not name types).
    public static let uniform = TypeProbabilities(stomping: 0.25, heelStrike: 0.25, shuffling: 0.25, running: 0.25)

    public init(stomping: Double, heelStrike: Double, shuffling: Double, running: Double) {
        self.stomping = stomping
        self.heelStrike = heelStrike
        self.shuffling = shuffling
        self.running = running
    }

    /// The shares of the footstep classes of the event model's calibrated
    /// probabilities (stomping, heel_strike, shuffling, running, other).
    public init(modelProbabilities p: [Double]) {
        let footstep = p[0] + p[1] + p[2] + p[3]
        guard footstep > 0 else {
            self = .uniform
            return
        }
        self.init(stomping: p[0] / footstep, heelStrike: p[1] / footstep, shuffling: p[2] / footstep, running: p[3] / footstep)
    }

    /// The probability of `type` (0 for `unknown`).
    public subscript(type: FootstepType) -> Double {
        switch type {
        case .stomping: stomping
        case .heelStrike: heelStrike
        case .shuffling: shuffling
        case .running: running
        case .unknown: 0
        }
    }
}
