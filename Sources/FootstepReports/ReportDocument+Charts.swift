import FootstepCore
import Foundation

/// The charts of a report, built from the document and drawn by both the PDF and
/// the HTML renderer.
extension ReportDocument {
    /// Footsteps per hour of day, stacked by type.
    var hourChart: StackedBarChart {
        StackedBarChart(
            title: "Footsteps by hour of day (local time)", labels: (0..<24).map { String(format: "%02d", $0) },
            series: ReportColour.typeOrder.map { type in
                StackedBarChart.Series(
                    name: type.rawValue, colour: .type(type),
                    values: statistics.footstepsByHourAndType[type, default: []].map(Double.init))
            })
    }

    /// Footsteps and other impacts per day.
    var dayChart: StackedBarChart {
        StackedBarChart(
            title: "Events per day", labels: statistics.days.map { String($0.date.suffix(5)) },
            series: [
                .init(name: "footsteps", colour: .footstep, values: statistics.days.map { Double($0.footsteps) }),
                .init(name: "other impacts", colour: .other, values: statistics.days.map { Double($0.other) }),
            ])
    }

    /// Footsteps and other impacts per night, with totals: the at-a-glance chart.
    var nightChart: StackedBarChart {
        let nights = statistics.nights
        return StackedBarChart(
            title: "Events per night (quiet hours \(scope.quietHours))", labels: nights.map { String($0.date.suffix(5)) },
            series: [
                .init(name: "footsteps", colour: .footstep, values: nights.map { Double($0.footsteps) }),
                .init(name: "other impacts", colour: .other, values: nights.map { Double($0.otherEvents) }),
            ],
            showTotals: nights.count <= 31)
    }

    /// One night's level timeline with its events marked.
    func timelineChart(_ night: EvidenceStatistics.Night) -> LevelTimelineChart {
        let (levels, events) = timeline(of: night)
        let title = "Night of \(night.date): \(night.footsteps) footsteps, \(night.otherEvents) other"
            + (night.loudestLAFmax.map { String(format: ", loudest %.1f %@", $0, scope.levelUnit) } ?? "")
            + (night.partial ? " (part of the night in the report period)" : "")
        return LevelTimelineChart(
            title: title, start: night.start, end: night.end, levels: levels, events: events, clock: clock,
            unit: scope.levelUnit, threshold: scope.calibrated ? ReportRule.who.threshold : nil,
            unrecorded: coverage?.unrecordedSpans(from: night.start, to: night.end) ?? [])
    }

    /// Nights worth a timeline: with events or level data.
    public var timelineNights: [EvidenceStatistics.Night] {
        statistics.nights.filter { $0.events > 0 || $0.levels != nil }
    }
}
