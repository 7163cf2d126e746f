import Foundation

/// One page of a time-ordered list (`/v1/events`, `/v1/levels`, `/v1/bouts`).
///
/// Pass `next_cursor` back as `?cursor=` for the next page; it is absent on the last page.
public struct PageResponse<Item: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The rows, oldest first.
    public var items: [Item]
    /// Opaque cursor for the next page, nil on the last one.
    public var nextCursor: String?

    public init(items: [Item], nextCursor: String?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case items
        case nextCursor = "next_cursor"
    }
}
