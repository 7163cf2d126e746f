import Foundation

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
