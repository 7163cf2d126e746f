import Foundation

/// A small self-contained SVG bar chart (stacked when a bar has several
/// segments), for the HTML report. No scripts, no external resources.
struct SVGBarChart {
    struct Series {
        var name: String
        var colour: String
        var values: [Double]
    }

    var title: String
    var labels: [String]
    var series: [Series]
    var width = 720.0
    var height = 240.0

    func render() -> String {
        let left = 40.0, bottom = 36.0, top = 28.0, right = 10.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let totals = labels.indices.map { index in series.reduce(0) { $0 + ($1.values.indices.contains(index) ? $1.values[index] : 0) } }
        let maximum = max(1, totals.max() ?? 1)
        let step = niceStep(maximum)
        let scaleTop = (maximum / step).rounded(.up) * step
        let barWidth = plotWidth / Double(max(1, labels.count))
        var svg = "<svg viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLText.escape(title))\">"
        svg += "<text x=\"\(f(left))\" y=\"18\" font-size=\"13\" font-weight=\"bold\">\(HTMLText.escape(title))</text>"
        var tick = 0.0
        while tick <= scaleTop + 1e-9 {
            let y = top + plotHeight * (1 - tick / scaleTop)
            svg += "<line x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(width - right))\" y2=\"\(f(y))\" stroke=\"#ddd\"/>"
            svg += "<text x=\"\(f(left - 4))\" y=\"\(f(y + 4))\" font-size=\"10\" text-anchor=\"end\">\(Int(tick))</text>"
            tick += step
        }
        for (index, label) in labels.enumerated() {
            var base = top + plotHeight
            let x = left + Double(index) * barWidth
            for item in series where item.values.indices.contains(index) && item.values[index] > 0 {
                let h = plotHeight * item.values[index] / scaleTop
                base -= h
                svg += "<rect x=\"\(f(x + barWidth * 0.1))\" y=\"\(f(base))\" width=\"\(f(barWidth * 0.8))\" height=\"\(f(h))\" fill=\"\(item.colour)\"><title>\(HTMLText.escape(label)) \(HTMLText.escape(item.name)): \(Int(item.values[index]))</title></rect>"
            }
            if labels.count <= 31 || index % max(1, labels.count / 24) == 0 {
                svg += "<text x=\"\(f(x + barWidth / 2))\" y=\"\(f(top + plotHeight + 14))\" font-size=\"10\" text-anchor=\"middle\">\(HTMLText.escape(label))</text>"
            }
        }
        var legendX = left
        for item in series where series.count > 1 {
            svg += "<rect x=\"\(f(legendX))\" y=\"\(f(height - 12))\" width=\"10\" height=\"10\" fill=\"\(item.colour)\"/>"
            svg += "<text x=\"\(f(legendX + 14))\" y=\"\(f(height - 3))\" font-size=\"10\">\(HTMLText.escape(item.name))</text>"
            legendX += 110
        }
        return svg + "</svg>"
    }

    private func niceStep(_ maximum: Double) -> Double {
        let raw = maximum / 5
        let magnitude = pow(10, floor(log10(max(raw, 1))))
        for factor in [1.0, 2, 5, 10] where factor * magnitude >= raw { return max(1, factor * magnitude) }
        return max(1, 10 * magnitude)
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }
}

/// HTML escaping for text and attribute values.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
