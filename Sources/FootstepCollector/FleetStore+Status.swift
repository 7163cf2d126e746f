import Foundation
import PostgresNIO

/// One sensor as `footstep-collector status` shows it.
public struct SensorStatus: Sendable, Equatable, Encodable {
    public var name: String
    public var lastSeen: Date
    /// `online` or `offline` (its last will), as it last said.
    public var availability: String?
    public var recording: Bool?
    public var gapsLast24Hours: Int
    /// Footsteps since midnight UTC, not deleted.
    public var eventsToday: Int
    /// The chain is verified from `chainVerifiedFrom` up to this event.
    public var chainVerifiedTo: Int64
    public var chainVerifiedFrom: Int64?
    /// Breaks no deletion explains and no late arrival filled: missing or altered events.
    public var chainBreaks: Int
    /// Since when an event after `chainVerifiedTo` has waited for the events before it (nil: none waits).
    public var chainWaitingSince: Date?

    enum CodingKeys: String, CodingKey {
        case name, availability, recording
        case lastSeen = "last_seen"
        case gapsLast24Hours = "gaps_last_24h"
        case eventsToday = "events_today"
        case chainVerifiedTo = "chain_verified_to"
        case chainVerifiedFrom = "chain_verified_from"
        case chainBreaks = "chain_breaks"
        case chainWaitingSince = "chain_waiting_since"
    }
}

extension FleetStore {
    /// Every sensor, by name.
    public func status(now: Date = Date()) async throws -> [SensorStatus] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let today = calendar.startOfDay(for: now)
        let dayAgo = now.addingTimeInterval(-86_400)
        let rows = try await client.query(
            """
            SELECT s.name, s.last_seen, s.availability, (s.state->>'recording')::boolean,
                   (SELECT count(*) FROM gap g WHERE g.sensor = s.name AND g.ended_at > \(dayAgo)),
                   (SELECT count(*) FROM event e WHERE e.sensor = s.name AND e.time >= \(today)
                      AND e.kind = 'footstep' AND e.deleted_by IS NULL),
                   s.chain_last_event, s.chain_verified_from,
                   (SELECT count(*) FROM chain_break b
                      WHERE b.sensor = s.name AND b.resolved_by IS NULL AND b.filled_at IS NULL),
                   s.chain_hole_since
            FROM sensor s ORDER BY s.name
            """, logger: logger)
        var sensors: [SensorStatus] = []
        for try await (name, seen, availability, recording, gaps, events, to, from, breaks, waiting) in rows.decode(
            (String, Date, String?, Bool?, Int64, Int64, Int64, Int64?, Int64, Date?).self)
        {
            sensors.append(
                SensorStatus(
                    name: name, lastSeen: seen, availability: availability, recording: recording,
                    gapsLast24Hours: Int(gaps), eventsToday: Int(events), chainVerifiedTo: to, chainVerifiedFrom: from,
                    chainBreaks: Int(breaks), chainWaitingSince: waiting))
        }
        return sensors
    }
}
