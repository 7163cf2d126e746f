import FootstepCore
import Foundation
import GRDB

extension FootstepDatabase {
    /// This store, checking `watch`'s rules whenever it appends events or level minutes: each
    /// exceedance is stored (``RuleExceedanceRecord``) in the same transaction, and so queued for
    /// MQTT with them. Level rules count only where a calibration makes levels absolute, as reports do.
    public func checkingRules(_ watch: RuleWatch?) -> FootstepDatabase {
        var copy = self
        copy.ruleWatch = watch
        return copy
    }

    /// The exceedances stored, oldest first (of one session, or all).
    public func exceedances(session sessionId: Int64? = nil) throws(StoreError) -> [RuleExceedanceRecord] {
        try read { db in
            var request = RuleExceedanceRecord.order(Column("id"))
            if let sessionId { request = request.filter(Column("sessionId") == sessionId) }
            return try request.fetchAll(db)
        }
    }

    /// Records what the events just inserted (`ids` in the order of `events`) exceed.
    static func recordExceedances(_ db: Database, events: [NewEvent], ids: [Int64], watch: RuleWatch) throws {
        var calibration = CalibrationCache()
        for rule in watch.rules {
            switch rule.metric {
            case .lafmax:
                for (event, id) in zip(events, ids) {
                    guard let limit = watch.limit(rule, at: event.timestamp), event.measurements.laMax > limit,
                        try calibration.absolute(db, at: event.timestamp)
                    else { continue }
                    if rule.minimumPerHour == 1 {
                        try insert(db, RuleExceedanceRecord(
                            sessionId: event.sessionId, rule: rule.name, metric: rule.metric, startedAt: event.timestamp,
                            value: event.measurements.laMax, threshold: limit, cause: event.measurements.kind.rawValue,
                            eventId: id, key: "\(rule.name)|event|\(id)"))
                    } else {
                        try recordHour(db, rule, sessionId: event.sessionId, at: event.timestamp, watch: watch)
                    }
                }
            case .eventsPerHour:
                var hours: [Date: Int64] = [:]
                for event in events where event.measurements.kind == .footstep {
                    hours[watch.hourStart(event.timestamp)] = event.sessionId
                }
                for (hour, sessionId) in hours.sorted(by: { $0.key < $1.key }) {
                    try recordHour(db, rule, sessionId: sessionId, at: hour, watch: watch)
                }
            case .laeq1min:
                continue
            }
        }
    }

    /// Records what the level minutes just inserted (with their ids) exceed.
    static func recordExceedances(_ db: Database, levels: [LevelMinuteRecord], watch: RuleWatch) throws {
        var calibration = CalibrationCache()
        for rule in watch.rules where rule.metric == .laeq1min {
            for level in levels {
                guard let id = level.id, let limit = watch.limit(rule, at: level.startedAt), level.laeq > limit,
                    try calibration.absolute(db, at: level.startedAt)
                else { continue }
                if rule.minimumPerHour == 1 {
                    let cause = try minuteCause(db, level)
                    try insert(db, RuleExceedanceRecord(
                        sessionId: level.sessionId, rule: rule.name, metric: rule.metric, startedAt: level.startedAt,
                        value: level.laeq, threshold: limit, cause: cause, levelMinuteId: id, key: "\(rule.name)|minute|\(id)"))
                } else {
                    try recordHour(db, rule, sessionId: level.sessionId, at: level.startedAt, watch: watch)
                }
            }
        }
    }

    /// Records the clock hour holding `date` once it holds the rule's count: more footsteps than
    /// the threshold (`events_per_hour`), or `minimumPerHour` exceeding events or minutes.
    private static func recordHour(_ db: Database, _ rule: ReportRule, sessionId: Int64, at date: Date, watch: RuleWatch) throws {
        let hour = watch.hourStart(date)
        let end = hour.addingTimeInterval(3600)
        let key = "\(rule.name)|hour|\(StoredDate.text(hour))"
        guard try RuleExceedanceRecord.filter(Column("key") == key).isEmpty(db) else { return }
        let count: Int
        let footstep: Bool
        let threshold: Double
        switch rule.metric {
        case .eventsPerHour:
            guard let limit = watch.limit(rule, at: hour) else { return }
            count = try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM event WHERE timestamp >= ? AND timestamp < ?
                    AND COALESCE(revisedKind, kind) = 'footstep' AND reviewVerdict IS NOT 'rejected'
                    """, arguments: [hour, end]) ?? 0
            guard Double(count) > limit else { return }
            (footstep, threshold) = (true, limit)
        case .lafmax:
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT timestamp, laMax, COALESCE(revisedKind, kind) AS kind FROM event
                    WHERE timestamp >= ? AND timestamp < ? AND reviewVerdict IS NOT 'rejected'
                    """, arguments: [hour, end])
            let exceeding = rows.filter { row in
                let text: String = row["timestamp"]
                let time = StoredDate.date(text) ?? hour
                return watch.limit(rule, at: time).map { (row["laMax"] as Double) > $0 } ?? false
            }
            count = exceeding.count
            footstep = exceeding.contains { ($0["kind"] as String) == EventKind.footstep.rawValue }
            threshold = watch.limit(rule, at: date) ?? rule.threshold
        case .laeq1min:
            let minutes = try LevelMinuteRecord.filter(Column("startedAt") >= hour && Column("startedAt") < end).fetchAll(db)
            let exceeding = minutes.filter { minute in watch.limit(rule, at: minute.startedAt).map { minute.laeq > $0 } ?? false }
            count = exceeding.count
            footstep = try exceeding.contains { try minuteCause(db, $0) == EventKind.footstep.rawValue }
            threshold = watch.limit(rule, at: date) ?? rule.threshold
        }
        guard count >= rule.minimumPerHour else { return }
        try insert(db, RuleExceedanceRecord(
            sessionId: sessionId, rule: rule.name, metric: rule.metric, startedAt: hour, value: Double(count),
            threshold: threshold, cause: footstep ? EventKind.footstep.rawValue : EventKind.other.rawValue, key: key))
    }

    /// What made a loud minute: a footstep in it, only other impacts, or neither (the background).
    private static func minuteCause(_ db: Database, _ level: LevelMinuteRecord) throws -> String {
        let kinds = try String.fetchAll(
            db,
            sql: """
                SELECT DISTINCT COALESCE(revisedKind, kind) FROM event
                WHERE sessionId = ? AND timestamp >= ? AND timestamp < ? AND reviewVerdict IS NOT 'rejected'
                """, arguments: [level.sessionId, level.startedAt, level.startedAt.addingTimeInterval(level.seconds)])
        if kinds.contains(EventKind.footstep.rawValue) { return EventKind.footstep.rawValue }
        return kinds.isEmpty ? "background" : EventKind.other.rawValue
    }

    private static func insert(_ db: Database, _ exceedance: RuleExceedanceRecord) throws {
        var record = exceedance
        try record.insert(db, onConflict: .ignore)
    }

    /// Whether levels at a time are absolute (the latest calibration before it makes them so); the
    /// calibrations are read once per append.
    private struct CalibrationCache {
        private var latest: [CalibrationRecord] = []
        private var loaded = false

        mutating func absolute(_ db: Database, at date: Date) throws -> Bool {
            if !loaded {
                latest = try CalibrationRecord.order(Column("measuredAt")).fetchAll(db)
                loaded = true
            }
            return latest.last { $0.measuredAt <= date }?.makesLevelsAbsolute ?? false
        }
    }
}
