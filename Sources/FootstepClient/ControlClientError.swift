import FootstepWire
/// Why a request to footstepd's control socket failed, worded so that the
/// person at the terminal knows what to do next.
public enum ControlClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No socket file: the daemon is not running.
    case notRunning(socketPath: String)
    /// A socket file nobody listens on (left from an earlier run): the daemon is not running.
    case notListening(socketPath: String)
    /// The socket (or its directory) may not be opened by this user.
    case permissionDenied(socketPath: String, group: String)
    /// The path exists but is not a socket.
    case notASocket(socketPath: String)
    /// Connecting failed for another reason (errno text included).
    case connectionFailed(socketPath: String, reason: String)
    /// The daemon did not answer in time.
    case timedOut(socketPath: String, seconds: Double)
    /// The daemon answered with an error status and an error body.
    case server(status: Int, code: String, message: String)
    /// The response was not what the protocol promises (not HTTP, not the expected JSON…).
    case malformedResponse(String)

    /// The group `permissionDenied` suggests when none is configured.
    public static let defaultReadGroup = "footstepd"

    public var description: String {
        switch self {
        case .notRunning(let path):
            "footstepd is not running (no socket at \(path))"
        case .notListening(let path):
            "footstepd is not running: nothing listens on \(path) (the socket file is left from an earlier run; start it with: sudo systemctl start footstepd)"
        case .permissionDenied(let path, let group):
            "permission denied on \(path): join the group `\(group)` (sudo usermod -aG \(group) $USER) or use sudo"
        case .notASocket(let path):
            "\(path) is not a socket: pass the daemon's socket with --socket or FOOTSTEPD_SOCKET"
        case .connectionFailed(let path, let reason):
            "cannot connect to footstepd at \(path): \(reason)"
        case .timedOut(let path, let seconds):
            "footstepd did not answer within \(Self.format(seconds)) s on \(path) (is it overloaded or hung? see journalctl -u footstepd)"
        case .server(_, _, let message):
            message
        case .malformedResponse(let detail):
            "malformed response from footstepd: \(detail)"
        }
    }

    /// The HTTP status for `.server`, else nil.
    public var status: Int? {
        if case .server(let status, _, _) = self { return status }
        return nil
    }

    /// A sysexits(3) exit code for command-line tools:
    /// 69 daemon unavailable, 77 permission denied (socket or 403), 75 timed out,
    /// 76 protocol error, 66 not found (404), 65 rejected request (other 4xx),
    /// 70 daemon error (5xx).
    public var exitCode: Int32 {
        switch self {
        case .notRunning, .notListening, .notASocket, .connectionFailed: 69
        case .permissionDenied: 77
        case .timedOut: 75
        case .malformedResponse: 76
        case .server(let status, _, _):
            switch status {
            case 401, 403: 77
            case 404: 66
            case 400..<500: 65
            default: 70
            }
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
