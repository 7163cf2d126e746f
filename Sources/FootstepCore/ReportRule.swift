import Foundation

/// A noise rule: a metric, a threshold and when it applies.
///
/// Reports check the standard rules (``who``, ``koreanMinuteLAeq``, ``koreanLAFmax``) and the
/// ones given to `footstepctl report --rule`; footstepd checks the standard rules as it stores
/// events and level minutes, and publishes each exceedance over MQTT.
///
/// - `laeq_1min`: every level minute whose LAeq exceeds the threshold;
/// - `lafmax`: every event whose LAFmax exceeds the threshold;
/// - `events_per_hour`: every clock hour with more footsteps than the threshold.
///
/// With `minimumPerHour` above 1, a clock hour counts (once) only when it holds at least
/// that many exceeding minutes or events (the Korean "three times in an hour").
public struct ReportRule: Sendable, Equatable {
    /// What is compared with the threshold.
    public enum Metric: String, Sendable, Codable, CaseIterable {
        case laeq1min = "laeq_1min"
        case lafmax
        case eventsPerHour = "events_per_hour"
    }

    /// When the rule applies: by day, at night (the rule's `nightHours`, by default the
    /// quiet hours) or all the time.
    public enum Window: String, Sendable, Codable, CaseIterable {
        case day
        case night
        case all
    }

    public var name: String
    public var metric: Metric
    /// dB for the level metrics (calibrated levels only), footsteps for `events_per_hour`.
    public var threshold: Double
    /// A different threshold at night when `window` is `all` (Korean standard: 39 / 34 dB).
    public var nightThreshold: Double?
    public var window: Window
    /// What "night" means for this rule; nil: the report's quiet hours.
    public var nightHours: DailyWindow?
    /// Exceedances needed in one clock hour for the hour to count (1: every exceedance counts).
    public var minimumPerHour: Int
    /// Count exceedances per night (WHO night).
    public var countPerNight: Bool

    public init(
        name: String, metric: Metric, threshold: Double, nightThreshold: Double? = nil, window: Window = .all,
        nightHours: DailyWindow? = nil, minimumPerHour: Int = 1, countPerNight: Bool = false
    ) {
        self.name = name
        self.metric = metric
        self.threshold = threshold
        self.nightThreshold = nightThreshold
        self.window = window
        self.nightHours = nightHours
        self.minimumPerHour = max(1, minimumPerHour)
        self.countPerNight = countPerNight
    }

    /// Whether the rule compares absolute levels (meaningless without calibration).
    public var needsCalibration: Bool { metric != .eventsPerHour }

    /// WHO night noise guideline: event LAFmax above 45 dB(A) indoors during the quiet hours, per night.
    public static let who = ReportRule(
        name: "WHO night noise (LAFmax)", metric: .lafmax, threshold: 45, window: .night, countPerNight: true)

    /// Korean inter-floor impact-noise standard: 1-minute LAeq above 39 dB(A) by day (06–22), 34 at night.
    public static let koreanMinuteLAeq = ReportRule(
        name: "Korean inter-floor standard, 1-minute LAeq", metric: .laeq1min, threshold: 39, nightThreshold: 34,
        nightHours: DailyWindow(start: 22 * 60, end: 6 * 60))

    /// Korean inter-floor impact-noise standard: LAFmax above 57 dB(A) by day, 52 at night, 3+ times in an hour.
    public static let koreanLAFmax = ReportRule(
        name: "Korean inter-floor standard, LAFmax", metric: .lafmax, threshold: 57, nightThreshold: 52,
        nightHours: DailyWindow(start: 22 * 60, end: 6 * 60), minimumPerHour: 3)

    /// The rules every report checks.
    public static let standard: [ReportRule] = [who, koreanMinuteLAeq, koreanLAFmax]

    /// The threshold that applies at a local `minuteOfDay` (0…1439), or nil when the rule
    /// does not apply then; `quietHours` is what night means when the rule does not say.
    public func limit(minuteOfDay: Int, quietHours: DailyWindow) -> Double? {
        let night = (nightHours ?? quietHours).contains(minute: minuteOfDay)
        switch window {
        case .day: return night ? nil : threshold
        case .night: return night ? threshold : nil
        case .all: return night ? (nightThreshold ?? threshold) : threshold
        }
    }

    /// The threshold in words, e.g. "LAFmax above 45 dB(A) at night (23:00-07:00)".
    public func thresholdDescription(quietHours: DailyWindow) -> String {
        let night = (nightHours ?? quietHours).description
        let unit = metric == .eventsPerHour ? "footsteps" : "dB(A)"
        let subject: String
        switch metric {
        case .laeq1min: subject = "1-minute LAeq above"
        case .lafmax: subject = "event LAFmax above"
        case .eventsPerHour: subject = "more footsteps in a clock hour than"
        }
        var text = "\(subject) \(Self.number(threshold)) \(unit)"
        switch window {
        case .day: text += " by day (outside \(night))"
        case .night: text += " at night (\(night))"
        case .all:
            if let nightThreshold { text += " by day, \(Self.number(nightThreshold)) at night (\(night))" }
        }
        if minimumPerHour > 1 { text += ", \(minimumPerHour) or more times in one hour" }
        return text
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
