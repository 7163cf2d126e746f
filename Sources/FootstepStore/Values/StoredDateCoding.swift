import Foundation
import GRDB

/// Record dates as `StoredDate` text, GRDB's own format, written and read
/// without `DateFormatter` or `Calendar` (GRDB's defaults use both, and with
/// them ICU: about 6 MB of resident locale and calendar data in footstepd).
/// Records that write or read `Date` columns use these strategies.
extension DatabaseDateEncodingStrategy {
    static let storedText = DatabaseDateEncodingStrategy.custom { StoredDate.text($0) }
}

extension DatabaseDateDecodingStrategy {
    static let storedText = DatabaseDateDecodingStrategy.custom { value in
        switch value.storage {
        case .string(let text): StoredDate.date(text) ?? Date.fromDatabaseValue(value)
        default: Date.fromDatabaseValue(value)
        }
    }
}
