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
        try database.calibrations().last { $0.measuredAt <= date }.flatMap { $0.makesLevelsAbsolute ? $0 : nil }.map {
            ReportCalibration(
                offsetDB: $0.offsetDB, measuredAt: $0.measuredAt, method: $0.method, reference: $0.reference,
                isFromConfiguration: $0.isFromConfiguration)
        }
    }

    /// A session the report covers, with the end of its data (its end; its last
    /// data while it is open; now when it has none yet).
    struct CoveredSession {
        var record: SessionRecord
        var end: Date
    }

    /// The sessions overlapping `[from, to)` (only `session` when given), oldest first.
    func sessions(from: Date, to: Date, session: Int64?) throws(StoreError) -> [CoveredSession] {
        var covered: [CoveredSession] = []
        for summary in try database.sessions() {
            let record = summary.session
            guard let id = record.id, session == nil || session == id, record.startedAt < to else { continue }
            var end = record.endedAt
            if end == nil { end = try database.lastDataTime(session: id) ?? Date() }
            guard let end, end > from else { continue }
            covered.append(CoveredSession(record: record, end: max(end, record.startedAt)))
        }
        return covered
    }

    /// What `sessions` recorded of `[from, to)`: their spans and their gaps.
    func coverage(of sessions: [CoveredSession], from: Date, to: Date) throws(StoreError) -> ReportCoverage {
        var gaps: [ReportCoverage.Gap] = []
        for session in sessions {
            let id = session.record.id!
            for gap in try database.gaps(session: id) where gap.startedAt < to && gap.endedAt > from {
                gaps.append(ReportCoverage.Gap(sessionId: id, start: gap.startedAt, end: gap.endedAt, reason: gap.reason))
            }
        }
        return ReportCoverage(
            sessions: sessions.map {
                ReportCoverage.Session(
                    id: $0.record.id!, title: $0.record.title, start: $0.record.startedAt, end: $0.end,
                    status: $0.record.status.rawValue, endReason: $0.record.endReason)
            },
            gaps: gaps)
    }

    /// The devices of `sessions`, every calibration up to `to`, and the microphone as configured.
    func equipment(of sessions: [CoveredSession], to: Date, microphone: String, placement: String) throws(StoreError)
        -> ReportEquipment
    {
        var devices: [ReportEquipment.Device] = []
        for record in sessions.map(\.record) {
            if let index = devices.firstIndex(where: {
                $0.name == record.device && $0.sampleRate == record.sampleRate && $0.channels == record.channels
            }) {
                devices[index].sessions += 1
            } else {
                devices.append(ReportEquipment.Device(
                    name: record.device, sampleRate: record.sampleRate, channels: record.channels, sessions: 1))
            }
        }
        let calibrations = try database.calibrations().filter { $0.measuredAt <= to }.map {
            ReportCalibration(
                offsetDB: $0.offsetDB, measuredAt: $0.measuredAt, method: $0.method, reference: $0.reference,
                isFromConfiguration: $0.isFromConfiguration)
        }
        return ReportEquipment(devices: devices, microphone: microphone, placement: placement, calibrations: calibrations)
    }

    /// Diary entries and marks about `[from, to)`, and the titles and notes of
    /// those of `sessions` that start in it.
    func diary(of sessions: [CoveredSession], from: Date, to: Date) throws(StoreError) -> [ReportDiaryItem] {
        var items = try database.diaryEntries(from: from, to: to).map { entry in
            // A mark's clip is named, so the audio it marks can be found (and is in a bundle).
            let clip = entry.clipPath.map { " [audio kept: clips/marks/\(($0 as NSString).lastPathComponent)]" } ?? ""
            return ReportDiaryItem(
                time: entry.at, kind: entry.kind == .mark ? .mark : .note,
                text: (entry.text.isEmpty ? "(mark)" : entry.text) + clip, duration: entry.duration, writtenAt: entry.writtenAt)
        }
        for record in sessions.map(\.record) where record.startedAt >= from && !(record.title.isEmpty && record.notes.isEmpty) {
            let text = [record.title, record.notes].filter { !$0.isEmpty }.joined(separator: ": ")
            items.append(ReportDiaryItem(time: record.startedAt, kind: .session, text: "session \(record.id!) started: \(text)"))
        }
        return items
    }

    /// Verifies the event hash chain now, for the report's integrity section.
    func integrity(databasePath: String) throws(StoreError) -> ReportIntegrity {
        let chain = try database.verifyChain()
        return ReportIntegrity(
            headHash: chain.headHash, headEventId: chain.headEventId, checkedEvents: chain.checkedEvents,
            intact: chain.isIntact, problems: chain.alteredEvents.count + chain.breaks.count, verifiedAt: Date(),
            command: "footstepctl verify --database \(databasePath)")
    }

    /// Every event with its onset in `[from, to)`, oldest first (one read-optimised query).
    func events(from: Date, to: Date, session: Int64?) throws(StoreError) -> [ReportEvent] {
        var result: [ReportEvent] = []
        try database.forEachReportEvent(from: from, to: to, session: session) { row in
            result.append(ReportEvent(
                id: row.id, sessionId: row.sessionId, timestamp: row.timestamp, duration: row.duration, kind: row.kind,
                type: row.type, confidence: row.confidence, intensity: row.intensity, laMax: row.laMax, lcMax: row.lcMax,
                sel: row.sel, notes: row.notes, clip: row.clipPath.map { ReportClipFile(path: $0, sha256: row.clipSha256) },
                revisedFrom: row.revisedFrom,
                review: row.review.map { ReportReview(verdict: $0.verdict, reviewer: $0.reviewer, reason: $0.reason) }))
        }
        return result
    }

    /// Every level minute starting in `[from, to)`, oldest first.
    func levels(from: Date, to: Date, session: Int64?) throws(StoreError) -> [ReportLevelInterval] {
        try database.reportLevels(from: from, to: to, session: session).map {
            ReportLevelInterval(start: $0.start, seconds: $0.seconds, laeq: $0.laeq, lceq: $0.lceq, lafMax: $0.lafMax, la90: $0.la90)
        }
    }

    /// Every bout starting in `[from, to)`.
    func bouts(from: Date, to: Date, session: Int64?) throws(StoreError) -> [ReportBout] {
        try database.bouts(from: from, to: to, session: session).items.map {
            ReportBout(start: $0.startedAt, end: $0.endedAt, steps: $0.steps, cadence: $0.cadence, dominantType: $0.dominantType, kind: $0.kind.rawValue)
        }
    }
}
