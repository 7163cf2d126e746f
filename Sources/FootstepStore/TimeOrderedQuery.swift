import Foundation
import GRDB

/// Builds the WHERE/ORDER BY/LIMIT of a time-ordered, cursor-paginated query on one table.
struct TimeOrderedQuery {
    /// The time column (`timestamp`, `startedAt`).
    var timeColumn: String
    var conditions: [String] = []
    var arguments = StatementArguments()

    init(timeColumn: String) {
        self.timeColumn = timeColumn
    }

    mutating func add(_ condition: String, _ values: [any DatabaseValueConvertible]) {
        conditions.append(condition)
        arguments += StatementArguments(values.map(\.databaseValue))
    }

    /// `from` inclusive, `to` exclusive; bound as stored text.
    mutating func addRange(from: Date?, to: Date?) {
        if let from { add("\(timeColumn) >= ?", [StoredDate.text(from)]) }
        if let to { add("\(timeColumn) < ?", [StoredDate.text(to)]) }
    }

    mutating func addCursor(_ cursor: TimeCursor?, order: TimeOrder) {
        guard let cursor else { return }
        let comparison = order == .ascending ? ">" : "<"
        add("(\(timeColumn), id) \(comparison) (?, ?)", [StoredDate.text(cursor.time), cursor.id])
    }

    /// The full SQL for `table`, fetching `limit + 1` rows so the caller knows whether more follow.
    func sql(table: String, order: TimeOrder, limit: Int?) -> String {
        var sql = "SELECT * FROM \(table)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        let direction = order == .ascending ? "ASC" : "DESC"
        sql += " ORDER BY \(timeColumn) \(direction), id \(direction)"
        if let limit { sql += " LIMIT \(limit + 1)" }
        return sql
    }

    /// Runs the query and cuts the extra row into a `nextCursor`.
    func page<Record: FetchableRecord & Sendable & Hashable>(
        _ db: Database, table: String, order: TimeOrder, limit: Int?,
        cursor: (Record) -> TimeCursor
    ) throws -> Page<Record> {
        var rows = try Record.fetchAll(db, sql: sql(table: table, order: order, limit: limit), arguments: arguments)
        guard let limit, rows.count > limit else { return Page(items: rows, nextCursor: nil) }
        rows.removeLast(rows.count - limit)
        return Page(items: rows, nextCursor: rows.last.map(cursor))
    }
}
