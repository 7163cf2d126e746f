import FootstepCore
import Foundation

/// The noise rules the store checks as it stores events and level minutes
/// (``FootstepDatabase/checkingRules(_:)``), and what night and local time mean for them.
public struct RuleWatch: Sendable {
    public var rules: [ReportRule]
    /// Night for a rule that does not name its own night hours (the configuration's quiet hours).
    public var quietHours: DailyWindow
    /// The local time the rules' hours and nights are read in (the C library's zone code, not
    /// Foundation's `Calendar`, which would bring ICU into the daemon: `WallClockZone`).
    public var zone: WallClockZone

    public init(rules: [ReportRule] = ReportRule.standard, quietHours: DailyWindow, zone: WallClockZone = .local) {
        self.rules = rules
        self.quietHours = quietHours
        self.zone = zone
    }

    /// Local minutes after midnight, 0…1439.
    func minuteOfDay(_ date: Date) -> Int {
        let fields = zone.fields(of: date)
        return fields.hour * 60 + fields.minute
    }

    /// The start of the local clock hour holding `date`.
    func hourStart(_ date: Date) -> Date { zone.startOfHour(containing: date) }

    /// The threshold of `rule` at `date`, or nil when it does not apply then.
    func limit(_ rule: ReportRule, at date: Date) -> Double? {
        rule.limit(minuteOfDay: minuteOfDay(date), quietHours: quietHours)
    }
}
