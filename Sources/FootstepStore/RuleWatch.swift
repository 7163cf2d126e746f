import FootstepCore
import Foundation

/// The noise rules the store checks as it stores events and level minutes
/// (``FootstepDatabase/checkingRules(_:)``), and what night and local time mean for them.
public struct RuleWatch: Sendable {
    public var rules: [ReportRule]
    /// Night for a rule that does not name its own night hours (the configuration's quiet hours).
    public var quietHours: DailyWindow
    /// The local time the rules' hours and nights are read in.
    public var timeZone: TimeZone

    public init(rules: [ReportRule] = ReportRule.standard, quietHours: DailyWindow, timeZone: TimeZone = .current) {
        self.rules = rules
        self.quietHours = quietHours
        self.timeZone = timeZone
    }

    /// Local minutes after midnight, 0…1439.
    func minuteOfDay(_ date: Date) -> Int {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    /// The start of the local clock hour holding `date`.
    func hourStart(_ date: Date) -> Date {
        calendar.dateInterval(of: .hour, for: date)?.start ?? date
    }

    /// The threshold of `rule` at `date`, or nil when it does not apply then.
    func limit(_ rule: ReportRule, at date: Date) -> Double? {
        rule.limit(minuteOfDay: minuteOfDay(date), quietHours: quietHours)
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
