import FootstepConfiguration
import FootstepCore
import Foundation

/// Where the monitoring schedule stands: always on, inside a window (until
/// when), or waiting for the next window (until when).
public enum ScheduleState: Sendable, Equatable, CustomStringConvertible {
    case always
    /// Inside a window that closes at `until` (nil: not within a week).
    case active(until: Date?)
    /// Outside the windows; the next opens at `until` (nil: not within a week).
    case waiting(until: Date?)

    /// True when the schedule wants monitoring now.
    public var isActive: Bool {
        if case .waiting = self { return false }
        return true
    }

    /// When `isActive` next changes, if known.
    public var nextChange: Date? {
        switch self {
        case .always: nil
        case let .active(until), let .waiting(until): until
        }
    }

    /// `always`, `in window until 08:00`, `waiting until 22:00` (local time).
    public var description: String {
        switch self {
        case .always: "always"
        case let .active(until): "in window until \(Self.clock(until))"
        case let .waiting(until): "waiting until \(Self.clock(until))"
        }
    }

    private static func clock(_ date: Date?) -> String {
        guard let date else { return "next week or later" }
        let fields = WallClockZone.local.fields(of: date)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(fields.hour)):\(two(fields.minute))"
    }
}

/// Follows the monitoring schedule on a clock (injectable for tests): the
/// current state and the instant it next changes, recomputed only when that
/// instant has passed.
struct ScheduleTracker {
    let schedule: MonitoringSchedule
    let zone: WallClockZone
    private(set) var state: ScheduleState
    /// When to look again: the next change, or in an hour when none is within a week.
    private var recheckAt: Date

    init(schedule: MonitoringSchedule, now: Date, zone: WallClockZone = .local) {
        self.schedule = schedule
        self.zone = zone
        state = .always
        recheckAt = now
        state = compute(at: now)
        recheckAt = state.nextChange ?? now.addingTimeInterval(3600)
    }

    /// Brings the state up to `now`; returns true when it changed.
    mutating func update(now: Date) -> Bool {
        guard case .windows = schedule, now >= recheckAt else { return false }
        let previous = state
        state = compute(at: now)
        recheckAt = state.nextChange ?? now.addingTimeInterval(3600)
        return state != previous
    }

    private func compute(at now: Date) -> ScheduleState {
        guard case .windows = schedule else { return .always }
        let active = schedule.isActive(at: now, in: zone)
        // Windows start and end on whole minutes: look minute by minute, up to 8 days ahead.
        let minute = (now.timeIntervalSince1970 / 60).rounded(.down) * 60
        var next: Date?
        for step in 1...(8 * 24 * 60) {
            let candidate = Date(timeIntervalSince1970: minute + Double(step) * 60)
            if schedule.isActive(at: candidate, in: zone) != active {
                next = candidate
                break
            }
        }
        return active ? .active(until: next) : .waiting(until: next)
    }
}
