/// A plain-text table that fits a terminal width: the flexible columns
/// (titles, notes) are shortened with "…" first, then trailing columns are
/// left out, and only then are lines cut.
struct TextTable {
    struct Column {
        var header: String
        /// Right-aligned (numbers).
        var right = false
        /// May be shortened to fit.
        var flexible = false
        /// Shortest width a flexible column is cut to.
        var minimum = 8
    }

    var columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [Column]) { self.columns = columns }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table as lines no wider than `width`.
    func render(width: Int) -> [String] {
        var count = columns.count
        var widths = columns.indices.map { index in
            rows.reduce(columns[index].header.count) { max($0, $1[index].count) }
        }
        func total() -> Int { widths.prefix(count).reduce(0, +) + 2 * max(count - 1, 0) }
        // Shorten flexible columns, widest first.
        while total() > width,
            let index = widths.prefix(count).indices
                .filter({ columns[$0].flexible && widths[$0] > columns[$0].minimum })
                .max(by: { widths[$0] < widths[$1] })
        {
            widths[index] = max(columns[index].minimum, widths[index] - (total() - width))
        }
        while total() > width && count > 1 { count -= 1 }
        let header = line(columns.prefix(count).map(\.header), widths: widths, count: count)
        return ([header] + rows.map { line($0, widths: widths, count: count) }).map { line in
            // An empty last cell leaves padding behind: no trailing spaces.
            String(String(line.prefix(width)).reversed().drop { $0 == " " }.reversed())
        }
    }

    private func line(_ cells: [String], widths: [Int], count: Int) -> String {
        (0..<count).map { index in
            let cell = cells[index].count > widths[index]
                ? String(cells[index].prefix(max(widths[index] - 1, 0))) + "…" : cells[index]
            let padding = String(repeating: " ", count: widths[index] - cell.count)
            // The last column is not padded on the right (no trailing spaces).
            if columns[index].right { return padding + cell }
            return index == count - 1 ? cell : cell + padding
        }.joined(separator: "  ")
    }
}
