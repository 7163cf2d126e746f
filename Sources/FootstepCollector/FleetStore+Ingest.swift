import FootstepMQTT
import Foundation
import Logging
import PostgresNIO

/// A message of one sensor: `<prefix>/<sensor>/<topic>`.
public struct FleetMessage: Sendable, Equatable {
    public var sensor: String
    public var topic: String
    public var payload: [UInt8]

    /// Nil for a topic outside `<prefix>/<sensor>/<topic>` (Home Assistant's, a command).
    public init?(_ message: MQTTMessage, prefix: String) {
        let parts = message.topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let head = prefix.split(separator: "/").map(String.init)
        guard parts.count == head.count + 2, Array(parts.prefix(head.count)) == head, !parts[head.count].isEmpty
        else { return nil }
        sensor = parts[head.count]
        topic = parts[head.count + 1]
        payload = message.payload
    }
}

extension FleetStore {
    /// Stores a message, in one transaction, and verifies the sensor's chain with each event (``ChainVerifier``).
    ///
    /// - Returns: What an operator must hear about (a chain break), for the journal.
    @discardableResult
    public func ingest(_ message: FleetMessage, at now: Date = Date()) async throws -> [String] {
        try await client.withTransaction(logger: logger) { connection in
            try await Ingest(connection: connection, logger: logger, hold: chainHold).store(message, at: now)
        }
    }
}

/// One message's statements, on the connection of its transaction.
private struct Ingest {
    let connection: PostgresConnection
    let logger: Logger
    /// How long a hole in a chain may wait for its events (`FleetStore.chainHold`).
    let hold: TimeInterval

    func store(_ message: FleetMessage, at now: Date) async throws -> [String] {
        let sensor = message.sensor
        // The sensor's row, and its chain as last verified.
        let rows = try await connection.query(
            """
            INSERT INTO sensor (name, first_seen, last_seen) VALUES (\(sensor), \(now), \(now))
            ON CONFLICT (name) DO UPDATE SET last_seen = EXCLUDED.last_seen
            RETURNING chain_head, chain_last_event, chain_verified_from, chain_hole_since
            """, logger: logger)
        var chain = ChainVerifier.State()
        for try await (head, last, from, since) in rows.decode((String?, Int64, Int64?, Date?).self) {
            chain = ChainVerifier.State(head: head, lastEventId: last, verifiedFrom: from, holeSince: since)
        }
        let text = String(decoding: message.payload, as: UTF8.self)
        switch message.topic {
        case "availability":
            try await connection.query("UPDATE sensor SET availability = \(text) WHERE name = \(sensor)", logger: logger)
        case "state":
            try await connection.query("UPDATE sensor SET state = \(text)::jsonb WHERE name = \(sensor)", logger: logger)
        case "event":
            return try await ingestEvent(
                MQTTPayloads.decode(MQTTPayloads.Event.self, from: message.payload), sensor, text, chain, now)
        case "revision":
            let r = try MQTTPayloads.decode(MQTTPayloads.Revision.self, from: message.payload)
            try await connection.query(
                """
                INSERT INTO revision (sensor, id, event, time, kind, type, confidence, hash, payload)
                VALUES (\(sensor), \(r.id), \(r.event), \(r.time), \(r.kind), \(r.type), \(r.confidence), \(r.hash),
                        \(text)::jsonb)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        case "deletion":
            let d = try MQTTPayloads.decode(MQTTPayloads.Deletion.self, from: message.payload)
            try await connection.query(
                """
                INSERT INTO deletion (sensor, id, time, first_event, last_event, events, previous_hash, last_hash,
                                      reason, payload)
                VALUES (\(sensor), \(d.id), \(d.time), \(d.first_event), \(d.last_event), \(d.events),
                        \(d.previous_hash), \(d.last_hash), \(d.reason), \(text)::jsonb)
                ON CONFLICT DO NOTHING
                """, logger: logger)
            // The events it removed stay here, marked; a break it explains is resolved.
            try await connection.query(
                """
                UPDATE event SET deleted_by = \(d.id)
                WHERE sensor = \(sensor) AND id BETWEEN \(d.first_event) AND \(d.last_event) AND deleted_by IS NULL
                """, logger: logger)
            try await connection.query(
                """
                UPDATE chain_break SET resolved_by = \(d.id)
                WHERE sensor = \(sensor) AND expected_hash = \(d.previous_hash) AND found_hash = \(d.last_hash)
                  AND resolved_by IS NULL
                """, logger: logger)
        case "session":
            let s = try MQTTPayloads.decode(MQTTPayloads.Session.self, from: message.payload)
            try await connection.query(
                """
                INSERT INTO session (sensor, id, status, started_at, ended_at, payload)
                VALUES (\(sensor), \(s.id), \(s.status), \(s.started_at), \(s.ended_at), \(text)::jsonb)
                ON CONFLICT (sensor, id) DO UPDATE
                SET status = EXCLUDED.status, ended_at = EXCLUDED.ended_at, payload = EXCLUDED.payload
                """, logger: logger)
        case "gap":
            let g = try MQTTPayloads.decode(MQTTPayloads.Gap.self, from: message.payload)
            try await connection.query(
                """
                INSERT INTO gap (sensor, id, session, started_at, ended_at, reason)
                VALUES (\(sensor), \(g.id), \(g.session), \(g.started_at), \(g.ended_at), \(g.reason))
                ON CONFLICT DO NOTHING
                """, logger: logger)
        case "levels":
            let l = try MQTTPayloads.decode(MQTTPayloads.Levels.self, from: message.payload)
            try await connection.query(
                """
                INSERT INTO level_minute (sensor, id, session, started_at, seconds, laeq, lafmax, la90)
                VALUES (\(sensor), \(l.id), \(l.session), \(l.started_at), \(l.seconds), \(l.laeq), \(l.lafmax), \(l.la90))
                ON CONFLICT DO NOTHING
                """, logger: logger)
        case "exceedance":
            let x = try MQTTPayloads.decode(MQTTPayloads.Exceedance.self, from: message.payload)
            try await connection.query(
                """
                INSERT INTO exceedance (sensor, id, session, rule, metric, period, time, value, threshold, cause, payload)
                VALUES (\(sensor), \(x.id), \(x.session), \(x.rule), \(x.metric), \(x.period), \(x.time), \(x.value),
                        \(x.threshold), \(x.cause), \(text)::jsonb)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        default:
            break
        }
        // A hole waits for its events: any message of the sensor may find it bridged by a deletion, or too old.
        guard chain.holeSince != nil else { return [] }
        return try await settleChain(sensor, ChainVerifier(state: chain, hold: hold), now)
    }

    private func ingestEvent(
        _ e: MQTTPayloads.Event, _ sensor: String, _ text: String, _ chain: ChainVerifier.State, _ now: Date
    ) async throws -> [String] {
        try await connection.query(PostgresQuery(unsafeSQL: FleetStore.partitionStatement(for: e.time)), logger: logger)
        let inserted = try await connection.query(
            """
            INSERT INTO event (sensor, id, session, time, kind, type, confidence, lafmax, hash, previous_hash, payload)
            VALUES (\(sensor), \(e.id), \(e.session), \(e.time), \(e.kind), \(e.type), \(e.confidence), \(e.lafmax),
                    \(e.hash), \(e.previous_hash), \(text)::jsonb)
            ON CONFLICT DO NOTHING
            RETURNING id
            """, logger: logger)
        var isNew = false
        for try await _ in inserted.decode(Int64.self) { isNew = true }
        guard isNew else { return [] }  // a redelivery
        let verifier = ChainVerifier(state: chain, hold: hold)
        if verifier.isBehind(e.id) {
            try await fillBreaks(sensor, now)
            return []
        }
        return try await settleChain(sensor, verifier, now)
    }

    /// Verifies the sensor's held events as far as they go, stores the chain's state and records the breaks
    /// declared.
    ///
    /// - Returns: The breaks no deletion explains, for the journal.
    func settleChain(_ sensor: String, _ verifier: ChainVerifier, _ now: Date) async throws -> [String] {
        var verifier = verifier
        var held: [ChainVerifier.Link] = []
        let rows = try await connection.query(
            """
            SELECT id, hash, previous_hash FROM event WHERE sensor = \(sensor) AND id > \(verifier.state.lastEventId)
            ORDER BY id
            """, logger: logger)
        for try await (id, hash, previous) in rows.decode((Int64, String, String).self) {
            held.append(ChainVerifier.Link(id: id, hash: hash, previousHash: previous))
        }
        let deletions = try await deletions(sensor)
        let outcomes = verifier.advance(over: held, bridges: Set(deletions.keys), now: now)
        let state = verifier.state
        try await connection.query(
            """
            UPDATE sensor SET chain_head = \(state.head), chain_last_event = \(state.lastEventId),
                              chain_verified_from = \(state.verifiedFrom), chain_hole_since = \(state.holeSince)
            WHERE name = \(sensor)
            """, logger: logger)
        var alerts: [String] = []
        for outcome in outcomes {
            let (event, expected, found, resolvedBy): (Int64, String, String, Int64?)
            switch outcome {
            case .follows, .startsHere:
                continue
            case let .bridged(id, bridge):
                (event, expected, found, resolvedBy) = (id, bridge.previousHash, bridge.lastHash, deletions[bridge])
            case let .breaks(id, e, f):
                (event, expected, found, resolvedBy) = (id, e, f, nil)
            }
            try await connection.query(
                """
                INSERT INTO chain_break (sensor, event, expected_hash, found_hash, detected_at, resolved_by)
                VALUES (\(sensor), \(event), \(expected), \(found), \(now), \(resolvedBy))
                ON CONFLICT DO NOTHING
                """, logger: logger)
            if resolvedBy == nil {
                alerts.append(
                    "sensor \(sensor): the events before event \(event) did not arrive within \(Int(hold)) s: events are missing or altered (chain break)"
                )
            }
        }
        return alerts
    }

    /// Marks filled the sensor's open breaks whose missing events have all arrived since, in a chain.
    private func fillBreaks(_ sensor: String, _ now: Date) async throws {
        let open = try await connection.query(
            """
            SELECT b.event, b.expected_hash, b.found_hash, coalesce(h.id, 0) FROM chain_break b
            LEFT JOIN event h ON h.sensor = b.sensor AND h.hash = b.expected_hash
            WHERE b.sensor = \(sensor) AND b.resolved_by IS NULL AND b.filled_at IS NULL
            """, logger: logger)
        var breaks: [(event: Int64, expected: String, found: String, after: Int64)] = []
        for try await row in open.decode((Int64, String, String, Int64).self) { breaks.append(row) }
        for b in breaks {
            var links: [ChainVerifier.Link] = []
            let rows = try await connection.query(
                """
                SELECT id, hash, previous_hash FROM event
                WHERE sensor = \(sensor) AND id > \(b.after) AND id < \(b.event) ORDER BY id
                """, logger: logger)
            for try await (id, hash, previous) in rows.decode((Int64, String, String).self) {
                links.append(ChainVerifier.Link(id: id, hash: hash, previousHash: previous))
            }
            guard ChainVerifier.fills(links, from: b.expected, to: b.found) else { continue }
            try await connection.query(
                "UPDATE chain_break SET filled_at = \(now) WHERE sensor = \(sensor) AND event = \(b.event)",
                logger: logger)
        }
    }

    /// The sensor's deletions as the chain sees them, each with its id.
    private func deletions(_ sensor: String) async throws -> [ChainVerifier.Bridge: Int64] {
        let rows = try await connection.query(
            "SELECT id, previous_hash, last_hash FROM deletion WHERE sensor = \(sensor)", logger: logger)
        var deletions: [ChainVerifier.Bridge: Int64] = [:]
        for try await (id, previous, last) in rows.decode((Int64, String, String).self) {
            deletions[ChainVerifier.Bridge(previousHash: previous, lastHash: last)] = id
        }
        return deletions
    }
}
