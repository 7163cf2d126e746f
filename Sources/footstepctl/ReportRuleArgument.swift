import ArgumentParser
import FootstepCore
import FootstepReports

/// A user-defined rule on the command line: `METRIC>THRESHOLD[,WINDOW][,N/h][,NAME]`,
/// e.g. `lafmax>50,night,3/h` or `events_per_hour>20,night,"Busy night hours"`.
/// METRIC is `laeq_1min`, `lafmax` or `events_per_hour`; WINDOW `day`, `night` (the
/// quiet hours) or `all` (default).
struct ReportRuleArgument: ExpressibleByArgument {
    var rule: ReportRule

    static let help = "A rule METRIC>THRESHOLD[,day|night|all][,N/h][,NAME]; METRIC laeq_1min, lafmax or events_per_hour (repeatable)."

    init?(argument: String) {
        let parts = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let head = parts.first?.split(separator: ">") ?? []
        guard head.count == 2, let metric = ReportRule.Metric(rawValue: String(head[0]).trimmingCharacters(in: .whitespaces)),
            let threshold = Double(head[1].trimmingCharacters(in: .whitespaces))
        else { return nil }
        var window = ReportRule.Window.all
        var perHour = 1
        var name: String?
        for part in parts.dropFirst() {
            if let parsed = ReportRule.Window(rawValue: part) {
                window = parsed
            } else if part.hasSuffix("/h"), let count = Int(part.dropLast(2)), count > 0 {
                perHour = count
            } else {
                name = part
            }
        }
        rule = ReportRule(
            name: name ?? "User rule: \(argument)", metric: metric, threshold: threshold, window: window, minimumPerHour: perHour)
    }
}
