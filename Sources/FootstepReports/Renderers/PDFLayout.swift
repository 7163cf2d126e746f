import CCairo
import Foundation

/// Flows blocks (headings, wrapped text, charts, tables) onto pages: a first pass
/// places everything and counts the pages, a second draws them with "Page n of N".
///
/// - Note: Not thread-safe; one layout per cairo context.
final class PDFLayout {
    typealias Draw = (CairoCanvas, Double) -> Void

    let canvas: CairoCanvas
    let pageWidth: Double
    let pageHeight: Double
    let margin = 42.0
    /// Placed drawing commands per page: each gets the y where it starts.
    private(set) var pages: [[(y: Double, draw: Draw)]] = [[]]
    private var y: Double

    init(canvas: CairoCanvas, paper: ReportPaper) {
        self.canvas = canvas
        (pageWidth, pageHeight) = paper.size
        y = margin
    }

    var contentWidth: Double { pageWidth - 2 * margin }
    private var bottomLimit: Double { pageHeight - margin - 14 }

    /// Starts a new page (unless the current one is empty).
    func pageBreak() {
        guard !(pages.last?.isEmpty ?? true) else { return }
        pages.append([])
        y = margin
    }

    /// Reserves `height` points, moving to a new page if it does not fit, and records `draw`.
    func place(height: Double, _ draw: @escaping Draw) {
        if y + height > bottomLimit { pageBreak() }
        pages[pages.count - 1].append((y, draw))
        y += height
    }

    func space(_ height: Double) { y = min(y + height, bottomLimit) }

    /// Room left on the current page.
    var remaining: Double { bottomLimit - y }

    func heading(_ text: String, size: Double = 14) {
        if remaining < 90 { pageBreak() }
        space(6)
        place(height: size + 8) { canvas, y in
            canvas.text(text, x: self.margin, y: y + size, size: size, colour: .text, anchor: .start, bold: true)
        }
    }

    /// Wrapped text.
    func paragraph(_ text: String, size: Double = 9, bold: Bool = false, colour: ReportColour = .text, indent: Double = 0) {
        let lines = wrap(text, width: contentWidth - indent, size: size, bold: bold)
        for line in lines {
            place(height: size * 1.35) { canvas, y in
                canvas.text(line, x: self.margin + indent, y: y + size, size: size, colour: colour, anchor: .start, bold: bold)
            }
        }
    }

    /// A label in bold and its wrapped value.
    func fact(_ label: String, _ value: String, labelWidth: Double = 130) {
        let lines = wrap(value, width: contentWidth - labelWidth, size: 8.5, bold: false)
        for (index, line) in lines.enumerated() {
            place(height: 12) { canvas, y in
                if index == 0 { canvas.text(label, x: self.margin, y: y + 9, size: 8.5, colour: .muted, anchor: .start, bold: true) }
                canvas.text(line, x: self.margin + labelWidth, y: y + 9, size: 8.5, colour: .text, anchor: .start, bold: false)
            }
        }
    }

    /// A table; rows flow over pages with the header repeated.
    func table(_ table: ReportTable, size: Double = 7.5) {
        let total = table.columns.reduce(0) { $0 + $1.weight }
        let widths = table.columns.map { contentWidth * $0.weight / total }
        let lineHeight = size * 1.3
        let titles = table.columns.enumerated().map { wrap($1.title, width: widths[$0] - 4, size: size, bold: true) }
        let headerHeight = Double(titles.map(\.count).max() ?? 1) * lineHeight + 4
        let header: Draw = { canvas, y in
            self.drawRow(table.columns.map(\.title), table: table, widths: widths, y: y, size: size, bold: true, fill: ReportColour(hex: "#e8e8e8"), lines: titles)
        }
        if remaining < headerHeight + lineHeight * 3 { pageBreak() }
        place(height: headerHeight, header)
        for (index, row) in table.rows.enumerated() {
            let wrapped = row.enumerated().map { column, cell in
                table.columns[column].numeric ? [cell] : wrap(cell, width: widths[column] - 4, size: size, bold: false)
            }
            let height = Double(wrapped.map(\.count).max() ?? 1) * lineHeight + 3
            if y + height > bottomLimit {
                pageBreak()
                place(height: headerHeight, header)
            }
            let fill: ReportColour? = table.highlighted.contains(index) ? ReportColour(hex: "#fff4e5") : (index % 2 == 1 ? ReportColour(hex: "#f7f7f7") : nil)
            place(height: height) { canvas, y in
                self.drawRow(row, table: table, widths: widths, y: y, size: size, bold: false, fill: fill, lines: wrapped)
            }
        }
        space(6)
    }

    private func drawRow(
        _ cells: [String], table: ReportTable, widths: [Double], y: Double, size: Double, bold: Bool, fill: ReportColour?,
        lines: [[String]]
    ) {
        let lineHeight = size * 1.3
        let rows = lines.isEmpty ? 1 : (lines.map(\.count).max() ?? 1)
        let height = Double(rows) * lineHeight + (bold ? 4 : 3)
        if let fill { canvas.rectangle(x: margin, y: y, width: contentWidth, height: height, fill: fill) }
        var x = margin
        for (column, width) in widths.enumerated() {
            let numeric = table.columns[column].numeric
            let cellLines = lines.isEmpty ? [cells[column]] : lines[column]
            for (line, text) in cellLines.enumerated() {
                let baseline = y + size + 1 + Double(line) * lineHeight
                if numeric {
                    canvas.text(text, x: x + width - 6, y: baseline, size: size, colour: .text, anchor: .end, bold: bold)
                } else {
                    canvas.text(text, x: x + 2, y: baseline, size: size, colour: .text, anchor: .start, bold: bold)
                }
            }
            x += width
        }
    }

    /// Greedy word wrap by measured width; over-long words are cut.
    func wrap(_ text: String, width: Double, size: Double, bold: Bool) -> [String] {
        guard !text.isEmpty else { return [""] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            for word in paragraph.split(separator: " ") {
                let candidate = current.isEmpty ? String(word) : current + " " + word
                if canvas.textWidth(candidate, size: size, bold: bold) <= width || current.isEmpty {
                    current = candidate
                } else {
                    lines.append(current)
                    current = String(word)
                }
                while canvas.textWidth(current, size: size, bold: bold) > width, current.count > 1 {
                    var cut = current
                    while cut.count > 1, canvas.textWidth(cut, size: size, bold: bold) > width { cut.removeLast() }
                    lines.append(cut)
                    current = String(current.dropFirst(cut.count))
                }
            }
            lines.append(current)
        }
        return lines
    }

    /// Draws every page onto the surface, with the footer.
    func render(footer: String, context: OpaquePointer) {
        let count = pages.count
        for (index, page) in pages.enumerated() {
            for item in page { item.draw(canvas, item.y) }
            let footerY = pageHeight - margin + 10
            canvas.line(margin, footerY - 10, pageWidth - margin, footerY - 10, colour: .grid, width: 0.5)
            canvas.text(footer, x: margin, y: footerY, size: 7, colour: .muted, anchor: .start, bold: false)
            canvas.text("Page \(index + 1) of \(count)", x: pageWidth - margin, y: footerY, size: 7, colour: .muted, anchor: .end, bold: false)
            cairo_show_page(context)
        }
    }
}
