import Foundation

/// Errors of `footstepctl report` a user can act on.
enum ReportCommandError: Error, CustomStringConvertible {
    case noSuchSession(Int64, String)
    case cannotCreateDirectory(String, String)
    case noDatabase(String)
    case badQuietHours(String)

    var description: String {
        switch self {
        case .noSuchSession(let id, let path): return "no session \(id) in \(path) (footstepctl sessions lists them)"
        case .cannotCreateDirectory(let path, let reason): return "cannot create the output directory \(path): \(reason)"
        case .badQuietHours(let text): return "--quiet-hours must look like 23:00-07:00, not '\(text)'"
        case .noDatabase(let path):
            return "no footstepd database at \(path): pass --database PATH or --state-dir DIR (the daemon's StateDirectory)"
        }
    }
}
