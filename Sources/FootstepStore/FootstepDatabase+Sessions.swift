import FootstepCore
import Foundation
import GRDB

// MARK: - Session writes

extension FootstepDatabase {
    /// Starts a new session in state `recording`.
    ///
    /// - Parameters:
    ///   - startedAt: Wall-clock time of the first captured frame (UTC): the sample clock anchor.
    ///   - device: Capture device name.
    ///   - sampleRate: Samples per second (> 0).
    ///   - channels: Channel count (> 0).
    ///   - timeZone: IANA identifier of the local zone, e.g. `TimeZone.current.identifier`.
    ///   - title: User-visible name.
    /// - Returns: The inserted session with its id.
    public func createSession(
        startedAt: Date, device: String, sampleRate: Int, channels: Int = 1,
        timeZone: String = TimeZone.current.identifier, title: String = "", notes: String = ""
    ) throws(StoreError) -> SessionRecord {
        guard sampleRate > 0, channels > 0 else {
            throw .invalidValue("sample rate \(sampleRate) and channels \(channels) must be positive")
        }
        guard TimeZone(identifier: timeZone) != nil else {
            throw .invalidValue("'\(timeZone)' is not an IANA time zone identifier")
        }
        var session = SessionRecord(
            startedAt: startedAt, status: .recording, title: title, notes: notes, device: device,
            sampleRate: sampleRate, channels: channels, timeZone: timeZone)
        return try write { db in
            try session.insert(db)
            return session
        }
    }

    /// Pauses or resumes an open session.
    ///
    /// - Parameter status: `.recording` or `.paused`; use ``endSession(_:at:status:)`` to end it.
    /// - Throws: ``StoreError/sessionClosed(id:status:)`` if it already ended.
    public func setSessionStatus(_ id: Int64, _ status: SessionStatus) throws(StoreError) {
        guard status.isOpen else {
            throw .invalidValue("status \(status.rawValue) ends a session: use endSession(_:at:status:)")
        }
        try write { db in
            var session = try Self.openSession(db, id)
            session.status = status
            try session.update(db, columns: [SessionRecord.Columns.status])
        }
    }

    /// Ends an open session.
    ///
    /// - Parameters:
    ///   - at: End time (UTC), not before the start.
    ///   - status: `.completed` (stopped on purpose, the default) or `.interrupted`.
    ///   - reason: Why it ended, for the reports' coverage ("stopped with footstepctl stop").
    public func endSession(
        _ id: Int64, at endedAt: Date, status: SessionStatus = .completed, reason: String? = nil
    ) throws(StoreError) {
        guard !status.isOpen else {
            throw .invalidValue("a session ends as completed or interrupted, not \(status.rawValue)")
        }
        try write { db in
            var session = try Self.openSession(db, id)
            guard endedAt >= session.startedAt else {
                throw StoreError.invalidValue("session \(id) cannot end before it started")
            }
            session.status = status
            session.endedAt = endedAt
            session.endReason = reason
            try session.update(
                db, columns: [SessionRecord.Columns.status, SessionRecord.Columns.endedAt, SessionRecord.Columns.endReason])
        }
    }

    /// Changes a session's title (any state).
    public func renameSession(_ id: Int64, title: String) throws(StoreError) {
        try write { db in
            try Self.requireSession(db, id)
            try SessionRecord.filter(id: id).updateAll(db, SessionRecord.Columns.title.set(to: title))
        }
    }

    /// Replaces a session's notes (any state; notes are not evidence and not hashed).
    public func setSessionNotes(_ id: Int64, notes: String) throws(StoreError) {
        try write { db in
            try Self.requireSession(db, id)
            try SessionRecord.filter(id: id).updateAll(db, SessionRecord.Columns.notes.set(to: notes))
        }
    }

    /// Records a stretch of a session without capture (device lost, overrun, pause).
    ///
    /// - Returns: The inserted gap.
    @discardableResult
    public func addGap(sessionId: Int64, from startedAt: Date, to endedAt: Date, reason: String) throws(StoreError)
        -> SessionGapRecord
    {
        guard endedAt >= startedAt else {
            throw .invalidValue("a gap cannot end (\(endedAt)) before it starts (\(startedAt))")
        }
        var gap = SessionGapRecord(sessionId: sessionId, startedAt: startedAt, endedAt: endedAt, reason: reason)
        return try write { db in
            try Self.requireSession(db, sessionId)
            try gap.insert(db)
            return gap
        }
    }

    // MARK: Invariant helpers

    /// The session, or ``StoreError/sessionNotFound(_:)``.
    @discardableResult
    static func requireSession(_ db: Database, _ id: Int64) throws -> SessionRecord {
        guard let session = try SessionRecord.fetchOne(db, id: id) else {
            throw StoreError.sessionNotFound(id)
        }
        return session
    }

    /// The session if it is open (recording or paused), else an error.
    @discardableResult
    static func openSession(_ db: Database, _ id: Int64) throws -> SessionRecord {
        let session = try requireSession(db, id)
        guard session.status.isOpen else {
            throw StoreError.sessionClosed(id: id, status: session.status)
        }
        return session
    }
}

// MARK: - Session reads

extension FootstepDatabase {
    /// All sessions with their totals, oldest first (by start time, then id).
    public func sessions() throws(StoreError) -> [SessionSummary] {
        try read { db in
            let sessions = try SessionRecord
                .order(SessionRecord.Columns.startedAt, SessionRecord.Columns.id)
                .fetchAll(db)
            return try sessions.map { try Self.summary(db, $0) }
        }
    }

    /// One session with its totals, or nil.
    public func session(_ id: Int64) throws(StoreError) -> SessionSummary? {
        try read { db in
            try SessionRecord.fetchOne(db, id: id).map { try Self.summary(db, $0) }
        }
    }

    /// The capture gaps of a session, in time order.
    public func gaps(session sessionId: Int64) throws(StoreError) -> [SessionGapRecord] {
        try read { db in
            try SessionGapRecord
                .filter(Column("sessionId") == sessionId)
                .order(Column("startedAt"), Column("id"))
                .fetchAll(db)
        }
    }

    /// Onset time of the latest event of a session, or nil if it has none.
    public func lastEventTime(session sessionId: Int64) throws(StoreError) -> Date? {
        try read { db in
            try Date.fetchOne(
                db, sql: "SELECT MAX(timestamp) FROM event WHERE sessionId = ?", arguments: [sessionId])
        }
    }

    /// Frame offset (from the session's start) of the latest event of a session, or nil if it has none.
    public func lastEventFrame(session sessionId: Int64) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(frameOffset) FROM event WHERE sessionId = ?", arguments: [sessionId])
        }
    }

    /// The onset frames (`frameOffset`) of a session's events at or after `frame`, ascending.
    public func eventFrames(session sessionId: Int64, from frame: Int64) throws(StoreError) -> [Int64] {
        try read { db in
            try Int64.fetchAll(
                db, sql: "SELECT frameOffset FROM event WHERE sessionId = ? AND frameOffset >= ? ORDER BY frameOffset",
                arguments: [sessionId, frame])
        }
    }

    /// The onset frame of a session's latest event that belongs to a gait bout; nil if none does.
    public func lastBoutStepFrame(session sessionId: Int64) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(
                db, sql: "SELECT MAX(frameOffset) FROM event WHERE sessionId = ? AND boutId IS NOT NULL",
                arguments: [sessionId])
        }
    }

    /// A session's events with onsets (`frameOffset`) at or after `frame`, by onset;
    /// with `kind`, only those whose current kind (after revisions) it is.
    public func events(session sessionId: Int64, fromFrame frame: Int64, kind: EventKind? = nil) throws(StoreError)
        -> [EventRecord]
    {
        try read { db in
            var request = EventRecord.filter(
                EventRecord.Columns.sessionId == sessionId && EventRecord.Columns.frameOffset >= frame)
            if let kind {
                request = request.filter(
                    (EventRecord.Columns.revisedKind ?? EventRecord.Columns.kind) == kind.rawValue)
            }
            return try request.order(EventRecord.Columns.frameOffset, EventRecord.Columns.id).fetchAll(db)
        }
    }

    /// The latest instant covered by a session's written data: the end of its last
    /// event, last level minute or last audio file (start + frames / rate), whichever
    /// is latest; nil if it has none.
    public func lastDataTime(session sessionId: Int64) throws(StoreError) -> Date? {
        try read { db in try Self.lastDataTime(db, sessionId) }
    }

    static func lastDataTime(_ db: Database, _ sessionId: Int64) throws -> Date? {
        var candidates: [Date] = []
        if let row = try Row.fetchOne(
            db,
            sql: "SELECT timestamp, duration FROM event WHERE sessionId = ? ORDER BY timestamp DESC, id DESC LIMIT 1",
            arguments: [sessionId])
        {
            let start: Date = row["timestamp"]
            candidates.append(start.addingTimeInterval(max(0, row["duration"] as Double)))
        }
        if let row = try Row.fetchOne(
            db,
            sql: "SELECT startedAt, seconds FROM levelMinute WHERE sessionId = ? ORDER BY startedAt DESC, id DESC LIMIT 1",
            arguments: [sessionId])
        {
            let start: Date = row["startedAt"]
            candidates.append(start.addingTimeInterval(row["seconds"] as Double))
        }
        let files = try AudioFileRecord
            .filter(AudioFileRecord.Columns.sessionId == sessionId)
            .order(AudioFileRecord.Columns.startedAt.desc)
            .limit(2)
            .fetchAll(db)
        candidates += files.map(\.endsAt)
        return candidates.max()
    }

    static func summary(_ db: Database, _ session: SessionRecord) throws -> SessionSummary {
        let id = session.id!
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT
                  (SELECT COUNT(*) FROM event WHERE sessionId = :id) AS eventCount,
                  (SELECT COUNT(*) FROM event WHERE sessionId = :id AND COALESCE(revisedKind, kind) = 'footstep'
                     AND reviewVerdict IS NOT 'rejected') AS footstepCount,
                  (SELECT COUNT(*) FROM audioFile WHERE sessionId = :id) AS audioFileCount,
                  (SELECT COALESCE(SUM(bytes), 0) FROM audioFile WHERE sessionId = :id) AS audioBytes,
                  (SELECT COUNT(*) FROM sessionGap WHERE sessionId = :id) AS gapCount,
                  (SELECT COALESCE(SUM((julianday(endedAt) - julianday(startedAt)) * 86400.0), 0)
                     FROM sessionGap WHERE sessionId = :id) AS gapSeconds
                """,
            arguments: ["id": id])!
        return SessionSummary(
            session: session,
            eventCount: row["eventCount"],
            footstepCount: row["footstepCount"],
            audioFileCount: row["audioFileCount"],
            audioBytes: row["audioBytes"],
            gapCount: row["gapCount"],
            gapSeconds: row["gapSeconds"],
            lastDataAt: try lastDataTime(db, id))
    }
}
