import Foundation

/// A position in a time-ordered list: the `(time, id)` of the last row of a page.
/// Pass it back as `after` to get the rows strictly after it (or before it, in
/// descending order). Stable while rows are appended, unlike offsets.
public struct TimeCursor: Sendable, Hashable, Codable {
    /// Time of the last row returned (event timestamp, level or bout start).
    public var time: Date
    /// Id of the last row returned (ties on `time` are ordered by id).
    public var id: Int64

    /// Creates a cursor.
    public init(time: Date, id: Int64) {
        self.time = time
        self.id = id
    }
}
