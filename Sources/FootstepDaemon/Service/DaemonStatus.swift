import Foundation

/// A snapshot of what the daemon is doing (for `STATUS=`, the control socket and tests).
public struct DaemonStatus: Sendable, Equatable {
    public enum State: String, Sendable, Equatable {
        case starting, recording, paused, idle, deviceLost = "device-lost", stopping
    }

    public var state: State = .starting
    /// The open session, if any.
    public var sessionId: Int64?
    /// The capture source's name.
    public var source: String?
    /// Frames captured in the current session.
    public var capturedFrames: Int64 = 0
    /// Events stored since the daemon started.
    public var storedEvents = 0
    /// Level intervals stored since the daemon started.
    public var storedLevels = 0
    /// Audio files closed since the daemon started.
    public var closedFiles = 0
    /// Capture periods dropped because the pipeline fell behind (current device).
    public var droppedPeriods = 0
    /// Device overruns recovered (current device).
    public var xruns = 0
    /// False while audio writing is suspended (disk full, I/O error).
    public var audioWriting = true
    /// The last error, for the status line.
    public var lastError: String?

    public init() {}

    /// The `STATUS=` line.
    public var line: String {
        var parts = [state.rawValue]
        if let sessionId { parts.append("session \(sessionId)") }
        parts.append("\(storedEvents) events")
        if droppedPeriods > 0 { parts.append("\(droppedPeriods) periods dropped") }
        if !audioWriting { parts.append("audio writing suspended") }
        if let lastError, state == .deviceLost || !audioWriting { parts.append(lastError) }
        return parts.joined(separator: ", ")
    }
}

/// Errors that end the daemon's run.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
