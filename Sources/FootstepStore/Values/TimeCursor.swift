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

/// Sort direction of a time-ordered list.
public enum TimeOrder: String, Sendable, Hashable, Codable {
    /// Oldest first.
    case ascending
    /// Newest first.
    case descending
}

/// One page of a time-ordered list.
public struct Page<Element: Sendable & Hashable>: Sendable, Hashable {
    /// The rows, in the requested order.
    public var items: [Element]
    /// Cursor for the next page; nil when this page is the last.
    public var nextCursor: TimeCursor?

    /// Creates a page.
    public init(items: [Element], nextCursor: TimeCursor?) {
        self.items = items
        self.nextCursor = nextCursor
    }
}
