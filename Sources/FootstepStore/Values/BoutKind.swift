import GRDB

/// What a gait bout (a run of consecutive footsteps) was.
public enum BoutKind: String, Sendable, Codable, CaseIterable, DatabaseValueConvertible {
    case walking
    case running
}
