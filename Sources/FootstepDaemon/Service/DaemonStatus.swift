import FootstepCore
import FootstepMQTT
import FootstepStore
import FootstepWire
import Foundation

/// A snapshot of what the daemon is doing (for `STATUS=`, the control socket and tests).
public struct DaemonStatus: Sendable, Equatable {
    public enum State: String, Sendable, Equatable {
        case starting, recording, paused, idle, deviceLost = "device-lost", stopping
    }

    /// Owns `state` and what the commands want: every change goes through `handle(_:)` and `command(_:in:)`.
    public private(set) var machine = DaemonStateMachine()
    /// What the daemon is doing.
    public var state: State { machine.state }

    /// Moves the state on `event` (see `DaemonStateMachine`); returns the new state when it changed.
    @discardableResult
    public mutating func handle(_ event: DaemonStateMachine.Event) -> State? { machine.handle(event) }

    /// Decides what `command` does (see `DaemonStateMachine.command(_:in:)`).
    public mutating func command(
        _ command: DaemonCommand, in situation: DaemonStateMachine.Situation
    ) -> DaemonStateMachine.CommandAction {
        machine.command(command, in: situation)
    }
    /// Version of the running daemon.
    public var version = FootstepVersion.current
    /// When the daemon started.
    public var startedAt = Date()
    /// Seconds since the daemon started.
    public var uptime: TimeInterval { Date().timeIntervalSince(startedAt) }

    // MARK: Session and device

    /// The open session, if any.
    public var sessionId: Int64?
    /// The open session's title and start (wall clock of its first frame).
    public var sessionTitle: String?
    public var sessionStartedAt: Date?
    /// The capture source's name (`alsa:hw:1,0`, `file:…`, `synthetic:…`).
    public var source: String?
    /// The capture format of the open session.
    public var sampleRate: Int?
    public var channels: Int?
    /// The ALSA sample format (`S16_LE`, `FLOAT_LE`) for a device, nil for files and the demo.
    public var sampleFormat: String?
    /// The container of the audio files and clips.
    public var audioFormat: AudioFileContainer?
    /// Frames captured in the current session.
    public var capturedFrames: Int64 = 0

    // MARK: Levels and events

    /// The live meter's last reading (nil before the first one of a session).
    public var level: LiveLevelReading?
    /// Events since local midnight by label: the footstep types (`stomping`,
    /// `heel_strike`, `shuffling`, `running`, `unknown`) and `other` for other impacts.
    /// Initialised from the store at start; reset at local midnight.
    public var eventsToday: [String: Int] = [:]
    /// Local midnight that starts the day `eventsToday` counts (nil before the first count).
    public var eventsTodayFrom: Date?
    /// All events since local midnight.
    public var eventsTodayTotal: Int { eventsToday.values.reduce(0, +) }

    /// Counts a newly stored event under `label` if it happened on the counted day:
    /// one timed before midnight but stored just after it (reported up to the
    /// detector's report delay after its onset) belongs to yesterday.
    public mutating func countToday(label: String, timestamp: Date) {
        if let start = eventsTodayFrom, timestamp < start { return }
        eventsToday[label, default: 0] += 1
    }

    /// Moves a footstep counted today from its old type to its revised one.
    public mutating func recountToday(from old: String, to new: String, timestamp: Date) {
        if let start = eventsTodayFrom, timestamp < start { return }
        guard let count = eventsToday[old], count > 0 else { return }
        eventsToday[old] = count > 1 ? count - 1 : nil
        eventsToday[new, default: 0] += 1
    }

    /// The stored event with the latest onset.
    public var lastEvent: EventRecord?
    /// Events stored since the daemon started.
    public var storedEvents = 0
    /// Level intervals stored since the daemon started.
    public var storedLevels = 0
    /// Gait bouts stored since the daemon started.
    public var storedBouts = 0
    /// Event clips written since the daemon started.
    public var storedClips = 0

    // MARK: Health

    /// Audio files closed since the daemon started.
    public var closedFiles = 0
    /// Capture periods dropped because the pipeline fell behind (current device).
    public var droppedPeriods = 0
    /// Device overruns recovered (current device).
    public var xruns = 0
    /// Samples analysed and recorded as silence because they were not numbers or out of range (this session).
    public var invalidSamples = 0
    /// False while audio writing is suspended (disk low or full, I/O error).
    public var audioWriting = true
    /// True while free space on the state directory is below `retention.minimum_free_bytes`.
    public var diskLow = false
    /// Free bytes on the state directory's file system (last check).
    public var diskFreeBytes: Int64?
    /// Bytes of full audio files on disk (not pruned by retention).
    public var audioBytes: Int64 = 0
    /// The monitoring schedule's state.
    public var schedule: ScheduleState = .always
    /// The last error, for the status line.
    public var lastError: String?
    /// Publishing to MQTT, while `[mqtt]` is on (filled in by ``FootstepDaemonService/status``).
    public var mqtt: OutboxPublisher.Health?
    public var mqttBroker: String?

    public init() {}

    /// The `STATUS=` line: state, session, events today, and any alarm.
    public var line: String {
        var parts = [state.rawValue]
        if let sessionId { parts.append("session \(sessionId)") }
        parts.append("\(eventsTodayTotal) events today")
        if let summary = todaySummary { parts[parts.count - 1] += " (\(summary))" }
        if case .always = schedule {} else { parts.append(schedule.description) }
        if droppedPeriods > 0 { parts.append("\(droppedPeriods) periods dropped") }
        if diskLow { parts.append("disk space low") }
        if !audioWriting { parts.append("audio writing suspended") }
        if let lastError, state == .deviceLost || !audioWriting { parts.append(lastError) }
        return parts.joined(separator: ", ")
    }

    /// `4 stomping, 2 heel_strike` (largest first), nil when there is nothing today.
    private var todaySummary: String? {
        let counts = eventsToday.filter { $0.value > 0 }.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        return counts.isEmpty ? nil : counts.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }
}
