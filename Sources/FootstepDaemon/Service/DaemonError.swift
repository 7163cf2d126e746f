import Foundation

/// Why the daemon's run ended, or why it refused a write while stopping: each case says what happened and what to
/// do, and footstepd exits with ``exitCode``.
public enum DaemonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another footstepd holds the state directory's lock: its process id and control socket when it wrote them.
    case stateDirectoryInUse(directory: String, lock: String, holder: Int32?, socket: String?)
    /// The state directory, or its lock file, cannot be created, opened or locked.
    case stateDirectoryUnusable(path: String, reason: String)
    /// The classifier's model cannot be loaded (`detection.model`, or the shipped one).
    case modelUnloadable(String)
    /// The audio source cannot be opened, or failed for good.
    case captureFailed(String)
    /// footstepd is stopping: the write or command was refused and nothing was written.
    case shuttingDown

    /// 75 (`EX_TEMPFAIL`: try again once the other one has stopped) when another footstepd uses the state
    /// directory; 1 otherwise.
    public var exitCode: Int32 {
        if case .stateDirectoryInUse = self { return 75 }
        return 1
    }

    public var description: String {
        switch self {
        case let .stateDirectoryInUse(directory, lock, holder, socket):
            let who = [holder.map { "pid \($0)" }, socket.map { "socket \($0)" }].compactMap { $0 }
            return "another footstepd\(who.isEmpty ? "" : " (\(who.joined(separator: ", ")))") is using the state "
                + "directory \(directory) (it holds \(lock)); stop it first (systemctl stop footstepd), or give this "
                + "one another state directory (--state-dir)"
        case let .stateDirectoryUnusable(path, reason):
            return "cannot use \(path): \(reason)"
        case let .modelUnloadable(reason):
            return "\(reason) (detection.model)"
        case let .captureFailed(reason):
            return reason
        case .shuttingDown:
            return "footstepd is shutting down; nothing was written"
        }
    }

    /// ``description``, for callers that show it.
    public var message: String { description }
}
