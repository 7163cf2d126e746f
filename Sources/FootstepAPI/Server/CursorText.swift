import FootstepStore
import Foundation

/// The text form of a ``TimeCursor`` in `next_cursor` / `?cursor=`:
/// `<milliseconds since 1970>.<row id>`. Clients treat it as opaque.
public enum CursorText {
    /// The times a cursor can name: the store's, 1970-01-01 through 9999-12-31 UTC.
    public static let milliseconds: ClosedRange<Int64> = 0...253_402_300_799_999

    /// Encodes a store cursor.
    public static func format(_ cursor: TimeCursor) -> String {
        "\(Int64((cursor.time.timeIntervalSince1970 * 1000).rounded())).\(cursor.id)"
    }

    /// Decodes a cursor, or nil when `text` is not one (also when its time is
    /// outside ``milliseconds``: no later arithmetic on it can overflow).
    public static func parse(_ text: String) -> TimeCursor? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let milliseconds = Int64(parts[0]), Self.milliseconds.contains(milliseconds),
            let id = Int64(parts[1]), id >= 0
        else {
            return nil
        }
        return TimeCursor(time: Date(timeIntervalSince1970: Double(milliseconds) / 1000), id: id)
    }
}
