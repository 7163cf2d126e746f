import FootstepCore
import Foundation

/// One night's levels minute by minute (LAeq, LAFmax, LA90) with its events marked
/// at their LAFmax: footsteps red, other impacts grey.
struct LevelTimelineChart {
    var title: String
    var start: Date
    var end: Date
    var levels: ArraySlice<ReportLevelInterval>
    var events: ArraySlice<ReportEvent>
    var clock: LocalClock
    var unit: String
    /// A threshold line (WHO 45 dB) when the levels are calibrated.
    var threshold: Double?
    /// Stretches without audio (outside sessions, device gaps), shaded.
    var unrecorded: [(start: Date, end: Date)] = []

    func draw(on canvas: ReportCanvas, x: Double, y: Double, width: Double, height: Double) {
        let left = x + 34, top = y + 18, right = x + width - 6, bottom = y + height - 16
        canvas.text(title, x: x, y: y + 10, size: 9, colour: .text, anchor: .start, bold: true)
        var values = levels.flatMap { [$0.la90, $0.lafMax, $0.laeq] } + events.map(\.laMax)
        if let threshold { values.append(threshold) }
        guard let low = values.min(), let high = values.max() else {
            canvas.text("no level data or events", x: left, y: (top + bottom) / 2, size: 8, colour: .muted, anchor: .start)
            return
        }
        let step = ChartScale.niceStep(max(1, (high - low) / 4))
        let floorValue = (low / step).rounded(.down) * step
        let ceiling = max(floorValue + step, (high / step).rounded(.up) * step)
        let span = end.timeIntervalSince(start)
        func px(_ date: Date) -> Double { left + (right - left) * date.timeIntervalSince(start) / span }
        func py(_ level: Double) -> Double { bottom - (bottom - top) * (level - floorValue) / (ceiling - floorValue) }

        var tick = floorValue
        while tick <= ceiling + step / 2 {
            canvas.line(left, py(tick), right, py(tick), colour: .grid, width: 0.4)
            canvas.text(ChartScale.label(tick), x: left - 3, y: py(tick) + 3, size: 6.5, colour: .muted, anchor: .end)
            tick += step
        }
        // Time not recorded is shaded, so that a quiet stretch is not read as a quiet night.
        for span in unrecorded {
            let x0 = px(span.start), x1 = px(span.end)
            canvas.rectangle(
                x: x0, y: top, width: max(0.8, x1 - x0), height: bottom - top, fill: .unrecorded,
                tooltip: "not recorded \(clock.time(span.start))–\(clock.time(span.end))")
            if x1 - x0 >= 45 {
                canvas.text("not recorded", x: (x0 + x1) / 2, y: top + 10, size: 6.5, colour: .muted, anchor: .middle)
            }
        }
        var hour = clock.hourStart(start)
        if hour < start { hour = hour.addingTimeInterval(3600) }
        while hour <= end {
            canvas.line(px(hour), top, px(hour), bottom, colour: .grid, width: 0.4)
            canvas.text(String(clock.time(hour).prefix(5)), x: px(hour), y: bottom + 11, size: 6.5, colour: .muted, anchor: .middle)
            hour = hour.addingTimeInterval(3600)
        }
        if let threshold {
            canvas.line(left, py(threshold), right, py(threshold), colour: .warning, width: 0.6)
            canvas.text("\(ChartScale.label(threshold))", x: right - 2, y: py(threshold) - 2, size: 6, colour: .warning, anchor: .end)
        }
        for segment in segments() {
            canvas.polyline(segment.map { (px($0.start), py($0.lafMax)) }, colour: .lafMax, width: 0.5)
            canvas.polyline(segment.map { (px($0.start), py($0.la90)) }, colour: .la90, width: 0.6)
            canvas.polyline(segment.map { (px($0.start), py($0.laeq)) }, colour: .laeq, width: 0.9)
        }
        for event in marks(columns: Int((right - left) / 1.5)) {
            let ex = px(event.timestamp)
            let colour: ReportColour = event.kind == .footstep ? .footstep : .other
            canvas.line(ex, bottom, ex, bottom + 3, colour: colour, width: 0.5)
            canvas.rectangle(x: ex - 1.2, y: py(event.laMax) - 1.2, width: 2.4, height: 2.4, fill: colour,
                             tooltip: "\(clock.time(event.timestamp)) \(event.kind.label(event.type)) \(String(format: "%.1f", event.laMax)) \(unit)")
        }
        canvas.line(left, bottom, right, bottom, colour: .muted, width: 0.6)
        canvas.text(unit, x: left + 2, y: top - 2, size: 6.5, colour: .muted, anchor: .start)
    }

    /// The events to mark: all of them, or on a busy night the loudest footstep and the
    /// loudest other impact per column (what the eye can tell apart anyway).
    private func marks(columns: Int) -> [ReportEvent] {
        guard events.count > 400, columns > 0 else { return Array(events) }
        let span = end.timeIntervalSince(start)
        var loudest: [Int: ReportEvent] = [:]
        for event in events {
            let column = Int(Double(columns) * event.timestamp.timeIntervalSince(start) / span) * 2 + (event.kind == .footstep ? 0 : 1)
            if loudest[column].map({ event.laMax > $0.laMax }) ?? true { loudest[column] = event }
        }
        return loudest.values.sorted { $0.timestamp < $1.timestamp }
    }

    /// Runs of consecutive minutes (a gap of more than two minutes breaks the line).
    private func segments() -> [[ReportLevelInterval]] {
        var result: [[ReportLevelInterval]] = []
        var current: [ReportLevelInterval] = []
        for level in levels {
            if let last = current.last, level.start.timeIntervalSince(last.start) > max(120, last.seconds * 2) {
                result.append(current)
                current = []
            }
            current.append(level)
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// The legend line under the timelines.
    static func legend(on canvas: ReportCanvas, x: Double, y: Double) {
        let items: [(String, ReportColour)] = [
            ("LAeq", .laeq), ("LAFmax", .lafMax), ("LA90", .la90), ("footstep", .footstep), ("other impact", .other),
            ("not recorded", .unrecorded),
        ]
        var lx = x
        for (name, colour) in items {
            canvas.rectangle(x: lx, y: y - 7, width: 8, height: 8, fill: colour)
            canvas.text(name, x: lx + 11, y: y, size: 7.5, colour: .text, anchor: .start)
            lx += 22 + Double(name.count) * 4.6
        }
    }
}
