import FootstepCore
import FootstepStore
import Foundation

/// The JSON of each topic (`docs/mqtt.md` documents them, `docs/mqtt/*.schema.json` are their schemas): keys in
/// snake_case, times in ISO 8601 UTC with milliseconds, levels in dB.
public enum MQTTPayloads {
    /// A stored event as the chain hashed it (a later revision is its own message).
    struct Event: Encodable {
        var id: Int64
        var session: Int64
        var time: Date
        var duration: Double
        var kind: String
        var type: String
        var confidence: Double
        var intensity: String
        var lafmax: Double
        var lcfmax: Double?
        var peak_dbfs: Double
        var sel: Double
        var hash: String
        var previous_hash: String
    }

    struct Revision: Encodable {
        var id: Int64
        var event: Int64
        var session: Int64?
        var time: Date
        var previous_kind: String
        var previous_type: String
        var kind: String
        var type: String
        var confidence: Double
        var reason: String
        var hash: String
        var previous_hash: String
    }

    /// A deletion recorded in the chain (its tombstone): the events it removed, so that a collector tells a
    /// deletion from a lost event.
    struct Deletion: Encodable {
        var id: Int64
        var time: Date
        var session: Int64
        var session_title: String
        var first_event: Int64
        var last_event: Int64
        var events: Int
        var previous_hash: String
        var last_hash: String
        var reason: String
    }

    struct Session: Encodable {
        var id: Int64
        var status: String
        var started_at: Date
        var ended_at: Date?
        var title: String
        var device: String
        var sample_rate: Int
        var channels: Int
    }

    struct Gap: Encodable {
        var id: Int64
        var session: Int64
        var started_at: Date
        var ended_at: Date
        var seconds: Double
        var reason: String
    }

    struct Levels: Encodable {
        var id: Int64
        var session: Int64
        var started_at: Date
        var seconds: Double
        var laeq: Double
        var lceq: Double
        var lafmax: Double
        var lafmin: Double
        var la10: Double
        var la90: Double
    }

    /// The topic (under the prefix) and payload of an outbox row; nil for a record deleted since it was queued.
    public static func message(for entry: OutboxEntry) -> (topic: String, payload: [UInt8])? {
        let topic = entry.topic.rawValue
        switch entry.item {
        case let .event(event):
            let m = event.measurements
            return (topic, encode(Event(
                id: event.id ?? 0, session: event.sessionId, time: event.timestamp, duration: m.duration,
                kind: m.kind.rawValue, type: m.type.rawValue, confidence: m.confidence, intensity: m.intensity.rawValue,
                lafmax: m.laMax, lcfmax: m.lcMax, peak_dbfs: m.peakDBFS, sel: m.sel, hash: event.hash,
                previous_hash: event.previousHash)))
        case let .revision(revision):
            return (topic, encode(Revision(
                id: revision.id ?? 0, event: revision.eventId, session: entry.sessionId, time: revision.revisedAt,
                previous_kind: revision.previousKind.rawValue, previous_type: revision.previousType.rawValue,
                kind: revision.kind.rawValue, type: revision.type.rawValue, confidence: revision.confidence,
                reason: revision.reason, hash: revision.hash, previous_hash: revision.previousHash)))
        case let .deletion(deletion):
            return (topic, encode(Deletion(
                id: deletion.id ?? 0, time: deletion.deletedAt, session: deletion.sessionId,
                session_title: deletion.sessionTitle, first_event: deletion.firstEventId,
                last_event: deletion.lastEventId, events: deletion.eventCount, previous_hash: deletion.previousHash,
                last_hash: deletion.lastHash, reason: deletion.reason)))
        case let .session(session, status):
            return (topic, encode(Session(
                id: session.id ?? 0, status: status.rawValue, started_at: session.startedAt,
                ended_at: status.isOpen ? nil : session.endedAt, title: session.title, device: session.device,
                sample_rate: session.sampleRate, channels: session.channels)))
        case let .gap(gap):
            return (topic, encode(Gap(
                id: gap.id ?? 0, session: gap.sessionId, started_at: gap.startedAt, ended_at: gap.endedAt,
                seconds: gap.seconds, reason: gap.reason)))
        case let .levels(level):
            return (topic, encode(Levels(
                id: level.id ?? 0, session: level.sessionId, started_at: level.startedAt, seconds: level.seconds,
                laeq: level.laeq, lceq: level.lceq, lafmax: level.lafMax, lafmin: level.lafMin, la10: level.la10,
                la90: level.la90)))
        case .gone:
            return nil
        }
    }

    /// JSON with sorted keys and ISO 8601 times (milliseconds, UTC).
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(isoTime(date))
        }
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// `2026-12-07T05:12:33.123Z`.
    static func isoTime(_ date: Date) -> String {
        let text = StoredDate.text(date)  // yyyy-MM-dd HH:mm:ss.SSS, UTC
        return text.replacingOccurrences(of: " ", with: "T") + "Z"
    }
}
