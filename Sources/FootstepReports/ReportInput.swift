import FootstepCore
import Foundation

/// One event as the reports see it.
public struct ReportEvent: Sendable, Equatable {
    public var timestamp: Date
    public var kind: EventKind
    public var type: FootstepType
    /// LAFmax of the event, dB(A) (calibrated or relative).
    public var laMax: Double
    /// LCFmax of the event, dB(C).
    public var lcMax: Double
    public var confidence: Double

    public init(timestamp: Date, kind: EventKind, type: FootstepType, laMax: Double, lcMax: Double, confidence: Double) {
        self.timestamp = timestamp
        self.kind = kind
        self.type = type
        self.laMax = laMax
        self.lcMax = lcMax
        self.confidence = confidence
    }
}

/// One level interval (normally a minute) as the reports see it.
public struct ReportLevelInterval: Sendable, Equatable {
    public var start: Date
    public var seconds: Double
    public var laeq: Double
    public var lceq: Double
    public var lafMax: Double
    public var la90: Double

    public init(start: Date, seconds: Double = 60, laeq: Double, lceq: Double, lafMax: Double, la90: Double) {
        self.start = start
        self.seconds = seconds
        self.laeq = laeq
        self.lceq = lceq
        self.lafMax = lafMax
        self.la90 = la90
    }
}

/// What a report covers and how to read the clock.
public struct ReportScope: Sendable {
    public var from: Date
    public var to: Date
    /// The local time zone of the flat (hours, nights and rules use it).
    public var timeZone: TimeZone
    /// Night-time quiet hours; a night is labelled by the date it starts on.
    public var quietHours: DailyWindow
    /// Whether levels carry a calibration offset (dB SPL) or are relative.
    public var calibrated: Bool

    public init(from: Date, to: Date, timeZone: TimeZone, quietHours: DailyWindow, calibrated: Bool) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.quietHours = quietHours
        self.calibrated = calibrated
    }

    /// "dB(A)" or "dB(A), uncalibrated (relative)".
    public var levelUnit: String { calibrated ? "dB(A)" : "dB(A), uncalibrated (relative)" }

    var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
