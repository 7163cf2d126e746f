import Foundation

/// Why an export could not be imported, with what to do about it.
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not JSON of a footstepd export.
    case notAnExport(source: String, message: String)
    /// The `format` field names a layout this build does not read.
    case unsupportedFormat(source: String, format: String)
    /// Events whose hash does not match their fields: the file was edited after export.
    case eventsAltered(source: String, eventIds: [Int64])
    /// Type revisions whose hash does not match their fields: the file was edited after export.
    case revisionsAltered(source: String, revisionIds: [Int64])
    /// A session with this id is already in the database.
    case sessionExists(id: Int64, title: String)
    /// A row id of the export is already used in the database.
    case rowExists(table: String, id: Int64)
    /// The exported events come before the end of the database's chain: ids cannot be
    /// restored without breaking the chain order.
    case chainOrder(firstEventId: Int64, lastEventIdInDatabase: Int64)
    /// A database error.
    case store(StoreError)
    /// Diary entries (by the time they describe) no longer match their hash.
    case diaryAltered(source: String, entries: [String])

    public var description: String {
        switch self {
        case let .notAnExport(source, message):
            return "\(source) is not a footstepd export: \(message)"
        case let .unsupportedFormat(source, format):
            return "\(source) has format '\(format)'; this footstepd reads \(SessionExport.formatTag) "
                + "and \(RangeExport.formatTag). Upgrade footstepd to import it."
        case let .eventsAltered(source, ids):
            let shown = ids.prefix(10).map(String.init).joined(separator: ", ")
            return "\(source) was altered after export: event(s) \(shown)\(ids.count > 10 ? " …" : "") "
                + "no longer match their hash. Nothing was imported."
        case let .revisionsAltered(source, ids):
            let shown = ids.prefix(10).map(String.init).joined(separator: ", ")
            return "\(source) was altered after export: type revision(s) \(shown)\(ids.count > 10 ? " …" : "") "
                + "no longer match their hash. Nothing was imported."
        case let .sessionExists(id, title):
            return "session \(id)\(title.isEmpty ? "" : " \"\(title)\"") is already in the database; "
                + "import into another (e.g. empty) database. Nothing was imported."
        case let .rowExists(table, id):
            return "the database already has a \(table) row with id \(id); an exact import needs free ids. "
                + "Import into another (e.g. empty) database. Nothing was imported."
        case let .chainOrder(first, last):
            return "the export's first event (id \(first)) is not after the database's last event (id \(last)): "
                + "events can only be restored exactly after the end of the hash chain. "
                + "Import into an empty database, or import exports oldest first. Nothing was imported."
        case let .store(error):
            return error.description
        case let .diaryAltered(source, entries):
            return "\(source) was altered after export: diary entr\(entries.count == 1 ? "y" : "ies") of "
                + entries.prefix(5).joined(separator: ", ") + (entries.count > 5 ? " …" : "")
                + " no longer match their hash. The diary was not imported."
        }
    }
}
