import Foundation
import GRDB

/// Everything that can go wrong in the evidence store, with messages a user can act on.
///
/// SQLite failures are mapped by result code (`SQLITE_FULL` → ``diskFull(path:)``,
/// `SQLITE_READONLY` → ``readOnly(path:message:)`` …) so callers and logs never
/// need to know SQLite codes; the original SQLite message is kept where it helps.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database file could not be opened or created (missing directory, permissions).
    case cannotOpen(path: String, message: String)
    /// A write was refused because the database (or its directory) is read-only.
    case readOnly(path: String, message: String)
    /// The disk holding the database is full (SQLITE_FULL).
    case diskFull(path: String)
    /// The file is not a SQLite database, or it is damaged.
    case corrupt(path: String, message: String)
    /// Another process holds a lock on the database for too long.
    case busy(path: String, message: String)
    /// The database was written by a newer footstepd (it has migrations this build does not know).
    case schemaTooNew(path: String)
    /// A read-only open found a database whose schema is not (fully) created yet.
    case schemaNotMigrated(path: String)
    /// No session has this id.
    case sessionNotFound(Int64)
    /// Data can only be added to a session that is `recording` or `paused`.
    case sessionClosed(id: Int64, status: SessionStatus)
    /// The session is still `recording` or `paused`; it must be ended first (e.g. before deletion).
    case sessionOpen(id: Int64, status: SessionStatus)
    /// No event has this id.
    case eventNotFound(Int64)
    /// No audio file row has this id.
    case audioFileNotFound(Int64)
    /// A value passed to a write method is not acceptable (non-finite level, negative frames …).
    case invalidValue(String)
    /// Any other SQLite error: the result code, SQLite's message and the statement.
    case sqlite(path: String, code: Int32, message: String, sql: String?)

    public var description: String {
        switch self {
        case let .cannotOpen(path, message):
            return "cannot open the evidence database at \(path): \(message). "
                + "Check that the directory exists and that the daemon's user may write to it."
        case let .readOnly(path, message):
            return "the evidence database at \(path) is read-only (\(message)). "
                + "Check file and directory permissions and that the file system is not mounted read-only."
        case let .diskFull(path):
            return "the disk holding the evidence database at \(path) is full: nothing more can be recorded. "
                + "Free space (e.g. lower the audio retention limit): footstepd writes again by itself once there is room."
        case let .corrupt(path, message):
            return "the evidence database at \(path) is damaged or is not a footstepd database (\(message)). "
                + "Keep a copy of the file for the record, then move it aside to start a new one."
        case let .busy(path, message):
            return "the evidence database at \(path) is locked by another process (\(message)). "
                + "Is a second footstepd or an sqlite3 shell holding it open?"
        case let .schemaTooNew(path):
            return "the evidence database at \(path) was written by a newer version of footstepd; "
                + "upgrade footstepd (downgrading is not supported)."
        case let .schemaNotMigrated(path):
            return "the evidence database at \(path) has an incomplete schema; "
                + "start footstepd once (read-write) to upgrade it."
        case let .sessionNotFound(id):
            return "no session with id \(id)"
        case let .sessionClosed(id, status):
            return "session \(id) is \(status.rawValue): no data can be added to it"
        case let .sessionOpen(id, status):
            return "session \(id) is still \(status.rawValue): stop it before deleting it"
        case let .eventNotFound(id):
            return "no event with id \(id)"
        case let .audioFileNotFound(id):
            return "no audio file with id \(id)"
        case let .invalidValue(message):
            return "invalid value: \(message)"
        case let .sqlite(path, code, message, sql):
            var text = "database error in \(path): \(message) (SQLite code \(code))"
            if let sql { text += " while running: \(sql)" }
            return text
        }
    }
}

extension StoreError {
    /// Maps any error thrown by GRDB or SQLite to a `StoreError`; `StoreError`s pass through.
    static func map(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else {
            return .sqlite(path: path, code: -1, message: String(describing: error), sql: nil)
        }
        let message = error.message ?? "unknown error"
        switch error.resultCode {
        case .SQLITE_FULL:
            return .diskFull(path: path)
        case .SQLITE_READONLY, .SQLITE_PERM:
            return .readOnly(path: path, message: message)
        case .SQLITE_CANTOPEN:
            return .cannotOpen(path: path, message: message)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            return .corrupt(path: path, message: message)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .busy(path: path, message: message)
        default:
            return .sqlite(path: path, code: error.extendedResultCode.rawValue, message: message, sql: error.sql)
        }
    }
}
