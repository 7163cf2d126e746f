import FootstepCore
import FootstepReports
import FootstepStore
import Foundation

/// Reads what a report needs from footstepd's store, read-only (WAL readers never
/// block the daemon's writes), and maps store records to report inputs.
struct ReportLoader {
    let database: FootstepDatabase

    /// Opens the store at `path` read-only.
    init(path: String) throws(StoreError) {
        database = try FootstepDatabase.openReadOnly(path: path)
    }

    /// The session's row, or an error naming the id.
    func session(_ id: Int64) throws -> SessionRecord {
        guard let summary = try database.session(id) else { throw ReportCommandError.noSuchSession(id, database.path) }
        return summary.session
    }

    /// The time zone of the most recent session (the flat's zone), if any.
    func latestTimeZone() throws(StoreError) -> TimeZone? {
        try database.sessions().last.flatMap { TimeZone(identifier: $0.session.timeZone) }
    }

    /// The latest calibration measured before `date`, or nil (uncalibrated).
    func calibration(before date: Date) throws(StoreError) -> ReportCalibration? {
        try database.calibrations().last { $0.measuredAt <= date }.map {
            ReportCalibration(offsetDB: $0.offsetDB, measuredAt: $0.measuredAt, method: $0.method, reference: $0.reference)
        }
    }

    /// Every event with its onset in `[from, to)`, oldest first (paged through the store).
    func events(from: Date, to: Date, session: Int64?) throws(StoreError) -> [ReportEvent] {
        var filter = EventFilter(sessionId: session, from: from, to: to, limit: EventFilter.maximumLimit)
        var result: [ReportEvent] = []
        while true {
            let page = try database.events(filter)
            result += page.items.map(Self.reportEvent)
            guard let next = page.nextCursor else { return result }
            filter.after = next
        }
    }

    /// Every level minute starting in `[from, to)`.
    func levels(from: Date, to: Date, session: Int64?) throws(StoreError) -> [ReportLevelInterval] {
        try database.levels(from: from, to: to, session: session).items.map {
            ReportLevelInterval(start: $0.startedAt, seconds: $0.seconds, laeq: $0.laeq, lceq: $0.lceq, lafMax: $0.lafMax, la90: $0.la90)
        }
    }

    /// Every bout starting in `[from, to)`.
    func bouts(from: Date, to: Date, session: Int64?) throws(StoreError) -> [ReportBout] {
        try database.bouts(from: from, to: to, session: session).items.map {
            ReportBout(start: $0.startedAt, end: $0.endedAt, steps: $0.steps, cadence: $0.cadence, dominantType: $0.dominantType, kind: $0.kind.rawValue)
        }
    }

    static func reportEvent(_ record: EventRecord) -> ReportEvent {
        ReportEvent(
            id: record.id, sessionId: record.sessionId, timestamp: record.timestamp, duration: record.duration,
            kind: record.kind, type: record.type, confidence: record.confidence, intensity: record.intensity,
            laMax: record.laMax, lcMax: record.lcMax, sel: record.sel, notes: record.notes,
            clip: record.clipPath.map { ReportClipFile(path: $0, sha256: record.clipSha256) })
    }
}
