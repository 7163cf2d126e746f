import FootstepCore
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// The read-optimised report queries of the store (`forEachReportEvent`, `reportLevels`)
/// against the store's general record queries, on a real SQLite file.
@Suite("Report rows from the store", .serialized)
struct ReportRowsTests {
    static let start = ISO8601DateFormatter().date(from: "2026-11-20T22:00:00Z")!

    static func makeStore(_ directory: TemporaryDirectory) throws -> (FootstepDatabase, Int64) {
        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let session = try database.createSession(
            startedAt: start, device: "synthetic:test", sampleRate: 16000, timeZone: "Europe/London", title: "rows")
        let id = session.id!
        var generator = SeededRandom(seed: 5)
        try database.appendEvents((0..<500).map { i in
            let seconds = Double(i) * 20 + Double.random(in: 0..<19, using: &generator)  // sub-millisecond parts too
            return NewEvent(
                sessionId: id, frameOffset: Int64(seconds * 16000), timestamp: start.addingTimeInterval(seconds),
                measurements: EventMeasurements(
                    duration: 0.3, kind: i % 5 == 0 ? .other : .footstep,
                    type: i % 5 == 0 ? .unknown : FootstepType.classified[i % 4],
                    confidence: Double.random(in: 0..<1, using: &generator), intensity: Intensity.allCases[i % 3],
                    laMax: Double.random(in: 30..<70, using: &generator), lcMax: i % 7 == 0 ? nil : 55, peakDBFS: -20,
                    sel: 33.5),
                notes: i % 100 == 0 ? "note \(i), \"quoted\"" : "")
        })
        try database.appendLevels((0..<180).map { minute in
            LevelMinuteRecord(
                sessionId: id, startedAt: start.addingTimeInterval(Double(minute) * 60), laeq: 30 + Double(minute % 9),
                lceq: 44, lafMax: 51, lafMin: 25, la10: 35, la90: 27.25)
        })
        return (database, id)
    }

    @Test func eventRowsAreTheStoredEventsInTimeOrder() throws {
        let directory = try TemporaryDirectory(prefix: "report-rows")
        let (database, session) = try Self.makeStore(directory)
        let from = Self.start.addingTimeInterval(600), to = Self.start.addingTimeInterval(8000)
        var rows: [EventReportRow] = []
        try database.forEachReportEvent(from: from, to: to, session: session) { rows.append($0) }
        let records = try database.events(EventFilter(sessionId: session, from: from, to: to, limit: 10_000)).items
        #expect(rows.count == records.count && rows.count > 300)
        for (row, record) in zip(rows, records) {
            #expect(row.id == record.id && row.sessionId == record.sessionId)
            #expect(abs(row.timestamp.timeIntervalSince(record.timestamp)) < 0.000_5, "event \(row.id)")
            #expect(row.kind == record.kind && row.type == record.type && row.intensity == record.intensity)
            #expect(row.confidence == record.confidence && row.laMax == record.laMax && row.lcMax == record.lcMax)
            #expect(row.sel == record.sel && row.duration == record.duration && row.notes == record.notes)
        }
        // Times are exact to the stored millisecond.
        let stored = try database.reader.read { db in try String.fetchOne(db, sql: "SELECT timestamp FROM event WHERE id = ?", arguments: [rows[0].id]) }
        #expect(StoredDate.text(rows[0].timestamp) == stored)

        var none = 0
        try database.forEachReportEvent(from: from, to: to, session: session + 1) { _ in none += 1 }
        #expect(none == 0)

        let levels = try database.reportLevels(from: Self.start, to: Self.start.addingTimeInterval(3600))
        #expect(levels.count == 60)
        #expect(levels.map(\.start) == (0..<60).map { Self.start.addingTimeInterval(Double($0) * 60) })
        #expect(levels.allSatisfy { $0.la90 == 27.25 && $0.seconds == 60 })
    }

    @Test func aTamperedRowIsNamed() throws {
        let directory = try TemporaryDirectory(prefix: "report-rows-tampered")
        let (database, _) = try Self.makeStore(directory)
        let path = directory.appending("footstepd.db")
        for (sql, expected) in [
            ("UPDATE event SET kind = 'bang' WHERE id = 7", "event row 7: column kind holds 'bang'"),
            (
                "UPDATE event SET kind = 'footstep' WHERE id = 7; UPDATE event SET timestamp = '2026-11-20 99:99:99.000' WHERE id = 9",
                "event row 9: its time is not a stored time"
            ),
        ] {
            let sqlite = try Subprocess.run("/usr/bin/sqlite3", [path, sql])
            #expect(sqlite.status == 0, "\(sqlite.stderr)")
            let error = #expect(throws: StoreError.self) {
                try database.forEachReportEvent(from: Self.start.addingTimeInterval(-86400), to: Self.start.addingTimeInterval(86400)) { _ in }
            }
            #expect(error.map { "\($0)" }?.contains(expected) == true, "\(String(describing: error))")
        }
    }
}
