/// What ``FootstepDatabase/deleteSession(_:reason:)`` removed. The rows are gone; the
/// caller must delete the files (the database cannot do it inside its transaction).
public struct SessionDeletion: Sendable, Hashable {
    /// The deleted session's id.
    public var sessionId: Int64
    /// Paths of its audio files.
    public var audioPaths: [String]
    /// Paths of its event clips.
    public var clipPaths: [String]
    /// Number of events removed.
    public var eventCount: Int
    /// The tombstones written into the hash chain (one per contiguous run of event ids).
    public var chainDeletions: [ChainDeletionRecord]

    /// Audio and clip paths together.
    public var allPaths: [String] { audioPaths + clipPaths }
}
