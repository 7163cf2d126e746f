import Foundation

/// A bar chart, stacked when several series are given, with a y grid and a legend.
struct StackedBarChart {
    struct Series {
        var name: String
        var colour: ReportColour
        var values: [Double]
    }

    var title: String
    var labels: [String]
    var series: [Series]
    /// Write each bar's total above it (few bars only).
    var showTotals = false

    func draw(on canvas: ReportCanvas, x: Double, y: Double, width: Double, height: Double) {
        let left = x + 34, top = y + 22, right = x + width - 6
        let legendHeight = series.count > 1 ? 14.0 : 0
        let bottom = y + height - 16 - legendHeight
        canvas.text(title, x: x, y: y + 11, size: 10, colour: .text, anchor: .start, bold: true)
        let totals = labels.indices.map { index in series.reduce(0) { $0 + ($1.values.indices.contains(index) ? $1.values[index] : 0) } }
        let step = ChartScale.niceStep((totals.max() ?? 0) / 4)
        let scaleTop = max(step, ((totals.max() ?? 0) / step).rounded(.up) * step)
        let plotHeight = bottom - top
        var tick = 0.0
        while tick <= scaleTop + step / 2 {
            let ty = bottom - plotHeight * tick / scaleTop
            canvas.line(left, ty, right, ty, colour: .grid, width: 0.5)
            canvas.text(ChartScale.label(tick), x: left - 3, y: ty + 3, size: 7, colour: .muted, anchor: .end)
            tick += step
        }
        let barWidth = (right - left) / Double(max(1, labels.count))
        let every = max(1, Int((Double(labels.count) * 26 / (right - left)).rounded(.up)))
        for (index, label) in labels.enumerated() {
            var base = bottom
            let bx = left + Double(index) * barWidth
            for item in series where item.values.indices.contains(index) && item.values[index] > 0 {
                let h = plotHeight * item.values[index] / scaleTop
                base -= h
                canvas.rectangle(
                    x: bx + barWidth * 0.12, y: base, width: barWidth * 0.76, height: h, fill: item.colour,
                    tooltip: "\(label) \(item.name): \(ChartScale.label(item.values[index]))")
            }
            if showTotals, totals[index] > 0 {
                canvas.text(ChartScale.label(totals[index]), x: bx + barWidth / 2, y: base - 2, size: 7, colour: .text, anchor: .middle)
            }
            if index % every == 0 {
                canvas.text(label, x: bx + barWidth / 2, y: bottom + 10, size: 7, colour: .muted, anchor: .middle)
            }
        }
        canvas.line(left, bottom, right, bottom, colour: .muted, width: 0.7)
        guard series.count > 1 else { return }
        var legendX = left
        for item in series {
            canvas.rectangle(x: legendX, y: y + height - 10, width: 8, height: 8, fill: item.colour)
            canvas.text(item.name, x: legendX + 11, y: y + height - 3, size: 7.5, colour: .text, anchor: .start)
            legendX += 16 + Double(item.name.count) * 4.6
        }
    }
}

/// Axis arithmetic shared by the charts.
enum ChartScale {
    /// 1, 2 or 5 × a power of ten, at least `raw` (and at least 1).
    static func niceStep(_ raw: Double) -> Double {
        let magnitude = pow(10, floor(log10(max(raw, 1))))
        for factor in [1.0, 2, 5, 10] where factor * magnitude >= raw { return max(1, factor * magnitude) }
        return max(1, 10 * magnitude)
    }

    static func label(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
