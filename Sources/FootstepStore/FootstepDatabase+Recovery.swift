import Foundation
import GRDB

extension FootstepDatabase {
    /// Ends every session left `recording` or `paused` by a crash, kill or power cut.
    ///
    /// Call once at start-up, before creating a new session. Each open session becomes
    /// `interrupted` with `endedAt` = the latest instant of its written data (end of its
    /// last event, last level minute or last audio file: start + frames / rate), or
    /// `startedAt` if it has no data.
    ///
    /// - Parameter endTimeFrom: Optionally, a later end time known outside the database,
    ///   per session (e.g. the true end of its last audio file, found when repairing the
    ///   file at start-up; the database only learns frame counts every few seconds). The
    ///   latest of this and the database's data is used; times before `startedAt` are ignored.
    /// - Returns: The ids of the sessions closed, oldest first.
    @discardableResult
    public func closeInterruptedSessions(endTimeFrom externalEnd: (SessionRecord) -> Date? = { _ in nil })
        throws(StoreError) -> [Int64]
    {
        try write { db in
            let open = try SessionRecord
                .filter([SessionStatus.recording.rawValue, SessionStatus.paused.rawValue].contains(SessionRecord.Columns.status))
                .order(SessionRecord.Columns.startedAt, SessionRecord.Columns.id)
                .fetchAll(db)
            for var session in open {
                let candidates = [session.startedAt, try Self.lastDataTime(db, session.id!), externalEnd(session)]
                session.endedAt = candidates.compactMap { $0 }.max()
                session.status = .interrupted
                session.endReason = SessionRecord.interruptedReason
                try session.update(
                    db, columns: [SessionRecord.Columns.status, SessionRecord.Columns.endedAt, SessionRecord.Columns.endReason])
            }
            return open.map { $0.id! }
        }
    }
}
