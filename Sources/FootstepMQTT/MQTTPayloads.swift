import FootstepCore
import FootstepStore
import Foundation

/// The JSON of each topic (`docs/mqtt.md` documents them, `docs/mqtt/*.schema.json` are their schemas): keys in
/// snake_case, times in ISO 8601 UTC with milliseconds, levels in dB. footstepd encodes them
/// (``message(for:)``); the fleet collector decodes them (``decode(_:from:)``).
public enum MQTTPayloads {
    /// A stored event as the chain hashed it (a later revision is its own message).
    public struct Event: Codable, Sendable, Equatable {
        public var id: Int64
        public var session: Int64
        public var time: Date
        public var duration: Double
        public var kind: String
        public var type: String
        public var confidence: Double
        public var intensity: String
        public var lafmax: Double
        public var lcfmax: Double?
        public var peak_dbfs: Double
        public var sel: Double
        public var hash: String
        public var previous_hash: String
    }

    public struct Revision: Codable, Sendable, Equatable {
        public var id: Int64
        public var event: Int64
        public var session: Int64?
        public var time: Date
        public var previous_kind: String
        public var previous_type: String
        public var kind: String
        public var type: String
        public var confidence: Double
        public var reason: String
        /// A person's review (`confirmed` or `rejected`), with the reviewer's uid and user name; absent for
        /// the pipeline's revisions.
        public var verdict: String?
        public var reviewer_uid: Int64?
        public var reviewer: String?
        public var hash: String
        public var previous_hash: String
    }

    /// A deletion recorded in the chain (its tombstone): the events it removed, so that a collector tells a
    /// deletion from a lost event.
    public struct Deletion: Codable, Sendable, Equatable {
        public var id: Int64
        public var time: Date
        public var session: Int64
        public var session_title: String
        public var first_event: Int64
        public var last_event: Int64
        public var events: Int
        public var previous_hash: String
        public var last_hash: String
        public var reason: String
    }

    public struct Session: Codable, Sendable, Equatable {
        public var id: Int64
        public var status: String
        public var started_at: Date
        public var ended_at: Date?
        public var title: String
        public var device: String
        public var sample_rate: Int
        public var channels: Int
        /// Why it ended ("stopped on request (footstepctl stop)"), once ended.
        public var end_reason: String?
    }

    public struct Gap: Codable, Sendable, Equatable {
        public var id: Int64
        public var session: Int64
        public var started_at: Date
        public var ended_at: Date
        public var seconds: Double
        public var reason: String
    }

    public struct Levels: Codable, Sendable, Equatable {
        public var id: Int64
        public var session: Int64
        public var started_at: Date
        public var seconds: Double
        public var laeq: Double
        public var lceq: Double
        public var lafmax: Double
        public var lafmin: Double
        public var la10: Double
        public var la90: Double
    }

    /// A noise rule exceeded, as it happened: by one event, one level minute, or a clock hour that reached
    /// the rule's count (then `value` is the count and `threshold` the limit each event or minute exceeded,
    /// or the footsteps an hour may hold).
    public struct Exceedance: Codable, Sendable, Equatable {
        public var id: Int64
        public var session: Int64
        public var rule: String
        public var metric: String
        /// `event`, `minute` or `hour`.
        public var period: String
        public var time: Date
        public var value: Double
        public var threshold: Double
        /// `footstep`, `other` or `background`.
        public var cause: String
        public var event: Int64?
        public var level_minute: Int64?
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
                reason: revision.reason, verdict: revision.verdict?.rawValue, reviewer_uid: revision.reviewerUid,
                reviewer: revision.reviewer, hash: revision.hash, previous_hash: revision.previousHash)))
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
                sample_rate: session.sampleRate, channels: session.channels,
                end_reason: status.isOpen ? nil : session.endReason)))
        case let .gap(gap):
            return (topic, encode(Gap(
                id: gap.id ?? 0, session: gap.sessionId, started_at: gap.startedAt, ended_at: gap.endedAt,
                seconds: gap.seconds, reason: gap.reason)))
        case let .levels(level):
            return (topic, encode(Levels(
                id: level.id ?? 0, session: level.sessionId, started_at: level.startedAt, seconds: level.seconds,
                laeq: level.laeq, lceq: level.lceq, lafmax: level.lafMax, lafmin: level.lafMin, la10: level.la10,
                la90: level.la90)))
        case let .exceedance(exceedance):
            let period = exceedance.eventId != nil ? "event" : (exceedance.levelMinuteId != nil ? "minute" : "hour")
            return (topic, encode(Exceedance(
                id: exceedance.id ?? 0, session: exceedance.sessionId, rule: exceedance.rule,
                metric: exceedance.metric.rawValue, period: period, time: exceedance.startedAt, value: exceedance.value,
                threshold: exceedance.threshold, cause: exceedance.cause, event: exceedance.eventId,
                level_minute: exceedance.levelMinuteId)))
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

    /// A payload of `type`, its times read as ``encode(_:)`` writes them.
    public static func decode<T: Decodable>(_ type: T.Type, from payload: [UInt8]) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard text.hasSuffix("Z"), let date = StoredDate.date(String(text.dropLast()).replacingOccurrences(of: "T", with: " "))
            else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an ISO 8601 UTC time"))
            }
            return date
        }
        return try decoder.decode(type, from: Data(payload))
    }

    /// `2026-12-07T05:12:33.123Z`.
    public static func isoTime(_ date: Date) -> String {
        let text = StoredDate.text(date)  // yyyy-MM-dd HH:mm:ss.SSS, UTC
        return text.replacingOccurrences(of: " ", with: "T") + "Z"
    }
}
