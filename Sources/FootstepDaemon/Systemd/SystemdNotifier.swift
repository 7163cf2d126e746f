import CSystemd
import Glibc

/// Talks to systemd's notification socket (`NOTIFY_SOCKET`): readiness,
/// status lines, watchdog pings, stopping. Without the variable (not under
/// systemd) every call is a no-op.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// True when systemd expects notifications (`NOTIFY_SOCKET` is set).
    public var isEnabled: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// The watchdog interval systemd asked for (`WATCHDOG_USEC` for this
    /// process), or nil when the watchdog is off.
    public var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(Int64(microseconds))
    }

    /// Sends `READY=1` with an optional status line.
    public func ready(status: String? = nil) {
        send(["READY=1", "MAINPID=\(getpid())"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    /// Sends `STATUS=…` (shown by `systemctl status`).
    public func status(_ text: String) { send(["STATUS=\(text)"]) }

    /// Sends `WATCHDOG=1`. Call only while audio is really arriving.
    public func watchdog() { send(["WATCHDOG=1"]) }

    /// Sends `RELOADING=1` before re-reading the configuration; follow with `ready()`.
    public func reloading() { send(["RELOADING=1"]) }

    /// Sends `STOPPING=1`.
    public func stopping(status: String? = nil) {
        send(["STOPPING=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
    }

    private func send(_ assignments: [String]) {
        // Newlines inside a value would start a new assignment.
        let text = assignments.map { $0.replacingNewlines() }.joined(separator: "\n")
        _ = sd_notify(0, text)
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        String(map { $0.isNewline ? " " : $0 })
    }
}
