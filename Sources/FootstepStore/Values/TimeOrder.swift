/// Sort direction of a time-ordered list.
public enum TimeOrder: String, Sendable, Hashable, Codable {
    /// Oldest first.
    case ascending
    /// Newest first.
    case descending
}
