import Foundation

/// What was recorded: each session's span and the outages inside and
/// between them, so that a report can tell "quiet" from "not recorded".
public struct ReportCoverage: Sendable, Equatable {
    /// A recording session as far as it reaches into the report.
    public struct Session: Sendable, Equatable {
        public var id: Int64
        public var title: String
        public var start: Date
        /// The end of its data (its end, its last data when interrupted, now when open).
        public var end: Date
        /// `completed`, `interrupted`, `recording` or `paused`.
        public var status: String
        /// Why it ended ("stopped on request", "the monitoring window closed"); nil while open or not recorded.
        public var endReason: String?

        public init(id: Int64, title: String, start: Date, end: Date, status: String, endReason: String? = nil) {
            self.id = id
            self.title = title
            self.start = start
            self.end = end
            self.status = status
            self.endReason = endReason
        }

        /// Whether the session is over (completed or interrupted).
        var ended: Bool { status == "completed" || status == "interrupted" }
    }

    /// A stretch after a session ended and before the next began (or until the report's end): the
    /// recording was stopped, outside the monitoring window, or footstepd was not running.
    public struct Stop: Sendable, Equatable {
        /// The session that ended.
        public var sessionId: Int64
        public var start: Date
        /// The next session's start, or nil when none began before the report's end.
        public var end: Date?
        public var nextSessionId: Int64?
        /// Why: the session's end reason.
        public var reason: String
        public var interrupted: Bool

        /// Seconds of it within `[from, to)` (to `to` when no session followed).
        public func seconds(from: Date, to: Date) -> Double {
            max(0, min(end ?? to, to).timeIntervalSince(max(start, from)))
        }
    }

    /// A stretch inside a session without audio (the microphone stalled or
    /// was lost), recorded by the daemon.
    public struct Gap: Sendable, Equatable {
        public var sessionId: Int64
        public var start: Date
        public var end: Date
        public var reason: String

        public init(sessionId: Int64, start: Date, end: Date, reason: String) {
            self.sessionId = sessionId
            self.start = start
            self.end = end
            self.reason = reason
        }
    }

    /// Sessions overlapping the report, oldest first.
    public var sessions: [Session]
    /// Gaps inside them, oldest first.
    public var gaps: [Gap]

    public init(sessions: [Session], gaps: [Gap]) {
        self.sessions = sessions.sorted { $0.start < $1.start }
        self.gaps = gaps.sorted { $0.start < $1.start }
    }

    /// Seconds of `[from, to)` with audio: inside a session and outside its gaps.
    public func recordedSeconds(from: Date, to: Date) -> Double {
        func overlap(_ start: Date, _ end: Date) -> Double {
            max(0, min(end, to).timeIntervalSince(max(start, from)))
        }
        let inSessions = sessions.reduce(0) { $0 + overlap($1.start, $1.end) }
        let inGaps = gaps.reduce(0) { $0 + overlap($1.start, $1.end) }
        return max(0, inSessions - inGaps)
    }

    /// The stretches of `[from, to)` without audio, oldest first: outside every
    /// session, or inside a gap. Touching or overlapping stretches are merged.
    public func unrecordedSpans(from: Date, to: Date) -> [(start: Date, end: Date)] {
        guard to > from else { return [] }
        // Recorded stretches: the sessions, clipped to the range, minus their gaps.
        var recorded: [(start: Date, end: Date)] = sessions.compactMap {
            let start = max($0.start, from), end = min($0.end, to)
            return end > start ? (start, end) : nil
        }
        for gap in gaps {
            recorded = recorded.flatMap { span -> [(start: Date, end: Date)] in
                guard gap.end > span.start, gap.start < span.end else { return [span] }
                return [(span.start, gap.start), (gap.end, span.end)].filter { $0.1 > $0.0 }
            }
        }
        recorded.sort { $0.start < $1.start }
        var spans: [(start: Date, end: Date)] = []
        var cursor = from
        for span in recorded {
            if span.start > cursor { spans.append((cursor, span.start)) }
            cursor = max(cursor, span.end)
        }
        if cursor < to { spans.append((cursor, to)) }
        return spans
    }

    /// Sessions that footstepd did not close (a crash, a power cut, a kill).
    public var interrupted: [Session] { sessions.filter { $0.status == "interrupted" } }

    /// The stretches between sessions before `until` (the report's end), oldest first: after each ended
    /// session, to the next one's start. One shorter than a second (a session restarted at once, for a
    /// new calibration) is left out.
    public func stops(until: Date) -> [Stop] {
        sessions.enumerated().compactMap { index, session -> Stop? in
            guard session.ended, session.end < until else { return nil }
            let next = sessions[(index + 1)...].first { $0.start >= session.end }
            if let next, next.start.timeIntervalSince(session.end) < 1 { return nil }
            if next == nil, until.timeIntervalSince(session.end) < 1 { return nil }
            let interrupted = session.status == "interrupted"
            let reason = session.endReason
                ?? (interrupted ? "footstepd stopped without closing it" : "stopped (why was not recorded)")
            return Stop(
                sessionId: session.id, start: session.end, end: next?.start, nextSessionId: next?.id, reason: reason,
                interrupted: interrupted)
        }
    }
}

/// The state of the evidence store's hash chain when the report was made.
public struct ReportIntegrity: Sendable, Equatable {
    /// The chain's head: the hash of the last event appended.
    public var headHash: String
    /// The id of the last event appended.
    public var headEventId: Int64
    /// Events whose hashes were recomputed and links checked.
    public var checkedEvents: Int
    /// No event altered, no link broken.
    public var intact: Bool
    /// Problems found (altered events and breaks), 0 when intact.
    public var problems: Int
    public var verifiedAt: Date
    /// The command that checks the store again.
    public var command: String

    public init(
        headHash: String, headEventId: Int64, checkedEvents: Int, intact: Bool, problems: Int, verifiedAt: Date,
        command: String
    ) {
        self.headHash = headHash
        self.headEventId = headEventId
        self.checkedEvents = checkedEvents
        self.intact = intact
        self.problems = problems
        self.verifiedAt = verifiedAt
        self.command = command
    }
}
