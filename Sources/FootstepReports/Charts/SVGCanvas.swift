import Foundation

/// Draws charts as inline SVG markup (no scripts, no external resources; heat maps
/// become embedded PNG data URIs).
final class SVGCanvas: ReportCanvas {
    private(set) var markup = ""
    let width: Double
    let height: Double

    init(width: Double, height: Double, label: String) {
        self.width = width
        self.height = height
        markup = "<svg viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(HTMLText.escape(label))\">"
    }

    /// The finished `<svg>` element.
    func finish() -> String { markup + "</svg>" }

    func rectangle(x: Double, y: Double, width: Double, height: Double, fill: ReportColour, tooltip: String?) {
        markup += "<rect x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"\(fill.hex)\""
        if let tooltip { markup += "><title>\(HTMLText.escape(tooltip))</title></rect>" } else { markup += "/>" }
    }

    func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: ReportColour, width: Double) {
        markup += "<line x1=\"\(f(x1))\" y1=\"\(f(y1))\" x2=\"\(f(x2))\" y2=\"\(f(y2))\" stroke=\"\(colour.hex)\" stroke-width=\"\(f(width))\"/>"
    }

    func polyline(_ points: [(Double, Double)], colour: ReportColour, width: Double) {
        guard points.count > 1 else { return }
        let list = points.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
        markup += "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(colour.hex)\" stroke-width=\"\(f(width))\"/>"
    }

    func text(_ text: String, x: Double, y: Double, size: Double, colour: ReportColour, anchor: TextAnchor, bold: Bool) {
        let anchorName = anchor == .start ? "start" : anchor == .middle ? "middle" : "end"
        markup += "<text x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"\(f(size))\" fill=\"\(colour.hex)\" text-anchor=\"\(anchorName)\""
        markup += bold ? " font-weight=\"bold\">" : ">"
        markup += HTMLText.escape(text) + "</text>"
    }

    func heatmap(_ values: [[Float]], x: Double, y: Double, width: Double, height: Double) {
        guard let png = HeatmapImage.png(values) else { return }
        markup += "<image x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(height))\" preserveAspectRatio=\"none\" "
        markup += "href=\"data:image/png;base64,\(png.base64EncodedString())\"/>"
    }

    private func f(_ value: Double) -> String { ReportNumber.fixed(value, 1) }
}

/// HTML escaping for text and attribute values.
enum HTMLText {
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
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
