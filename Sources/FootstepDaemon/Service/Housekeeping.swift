import FootstepConfiguration
import FootstepCore
import FootstepStore
import Foundation
import Logging

/// The service's periodic chores, in and between sessions: following the
/// monitoring schedule, free-space checks and retention (`StorageMonitor`),
/// and the local day of "events today".
///
/// - Note: Used by the service's task only.
struct Housekeeping {
    private(set) var storage: StorageMonitor
    private(set) var schedule: ScheduleTracker
    let options: DaemonOptions
    let logger: Logger
    private let database: FootstepDatabase
    private var dayEnd = Date.distantPast
    private var lastDiskCheck: ContinuousClock.Instant?
    private var lastRetention: ContinuousClock.Instant?
    private var lastClosedFiles = -1

    init(configuration: DaemonConfiguration, database: FootstepDatabase, options: DaemonOptions, logger: Logger) {
        storage = StorageMonitor(
            stateDirectory: configuration.stateDirectory, clipDirectory: configuration.clipDirectory, database: database,
            logger: logger)
        schedule = ScheduleTracker(schedule: configuration.schedule, now: options.scheduleClock())
        self.database = database
        self.options = options
        self.logger = logger
    }

    /// True when the schedule wants monitoring now.
    var scheduleActive: Bool { schedule.state.isActive }

    /// Runs what is due. Returns true when the schedule's state changed.
    @discardableResult
    mutating func tick(configuration: DaemonConfiguration, status: SessionSink.StatusUpdate) -> Bool {
        let now = ContinuousClock.now
        var scheduleChanged = false
        if schedule.schedule != configuration.schedule {
            // Reloaded: follow the new schedule from now on.
            schedule = ScheduleTracker(schedule: configuration.schedule, now: options.scheduleClock())
            scheduleChanged = true
        } else {
            scheduleChanged = schedule.update(now: options.scheduleClock())
        }
        if scheduleChanged {
            logger.notice("monitoring schedule: \(schedule.state)")
        }
        let state = schedule.state
        status { $0.schedule = state }

        if lastDiskCheck.map({ now - $0 >= .seconds(options.diskCheckInterval) }) ?? true {
            lastDiskCheck = now
            storage.checkFreeSpace(minimumFreeBytes: configuration.retention.minimumFreeBytes, status: status)
        }
        var closedFiles = 0
        status { closedFiles = $0.closedFiles }
        if closedFiles != lastClosedFiles || lastRetention.map({ now - $0 >= .seconds(options.retentionInterval) }) ?? true {
            lastRetention = now
            lastClosedFiles = closedFiles
            storage.applyRetention(
                maximumBytes: configuration.retention.maximumAudioBytes,
                maximumDays: configuration.retention.maximumAudioDays, status: status)
        }

        let wallClock = Date()
        if wallClock >= dayEnd { startDay(at: wallClock, status: status) }
        return scheduleChanged
    }

    /// Counts today's events (local day) from the store: at start and at each midnight.
    private mutating func startDay(at now: Date, status: SessionSink.StatusUpdate) {
        let start = WallClockZone.local.startOfDay(containing: now)
        dayEnd = WallClockZone.local.startOfNextDay(after: now)
        let counts = Self.eventCounts(database, from: start, to: dayEnd, logger: logger)
        status {
            $0.eventsToday = counts
            $0.eventsTodayFrom = start
        }
    }

    /// The stored events of `[from, to)`: footsteps by type, and `other` (when any).
    static func eventCounts(_ database: FootstepDatabase, from: Date, to: Date, logger: Logger) -> [String: Int] {
        var counts: [String: Int] = [:]
        do {
            for (type, count) in try database.eventCountsByType(from: from, to: to, kind: .footstep) {
                counts[type.rawValue] = count
            }
            let others = try database.eventCountsByType(from: from, to: to, kind: .other).values.reduce(0, +)
            if others > 0 { counts[EventKind.other.rawValue] = others }
        } catch {
            logger.error("cannot count today's events: \(error)")
        }
        return counts
    }
}
