import GRDB

/// The life-cycle state of a recording session.
///
/// `recording` and `paused` are open states: data may be added. `completed`
/// (stopped on purpose) and `interrupted` (found open at start-up after a crash or
/// power cut) are final.
public enum SessionStatus: String, Sendable, Codable, CaseIterable, DatabaseValueConvertible {
    case recording
    case paused
    case completed
    case interrupted

    /// Whether new events, levels, bouts and audio files may be added.
    public var isOpen: Bool { self == .recording || self == .paused }
}
