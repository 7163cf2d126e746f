import Foundation

/// Level statistics of one stored interval (`GET /v1/levels`), dB.
public struct LevelMinuteResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var sessionId: Int64
    public var startedAt: Date
    /// Length of the interval in seconds (usually 60).
    public var seconds: Double
    public var laeq: Double
    public var lceq: Double
    public var lafMax: Double
    public var lafMin: Double
    public var la10: Double
    public var la90: Double

    public init(
        id: Int64, sessionId: Int64, startedAt: Date, seconds: Double, laeq: Double, lceq: Double, lafMax: Double,
        lafMin: Double, la10: Double, la90: Double
    ) {
        self.id = id
        self.sessionId = sessionId
        self.startedAt = startedAt
        self.seconds = seconds
        self.laeq = laeq
        self.lceq = lceq
        self.lafMax = lafMax
        self.lafMin = lafMin
        self.la10 = la10
        self.la90 = la90
    }

    enum CodingKeys: String, CodingKey {
        case id, seconds, laeq, lceq, la10, la90
        case sessionId = "session_id"
        case startedAt = "started_at"
        case lafMax = "laf_max"
        case lafMin = "laf_min"
    }
}

/// A gait bout: a walk or run across the room (`GET /v1/bouts`).
public struct BoutResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var sessionId: Int64
    public var startedAt: Date
    public var endedAt: Date
    public var steps: Int
    /// Steps per second.
    public var cadence: Double
    /// The most frequent step type.
    public var dominantType: String
    /// `walking` or `running`.
    public var kind: String

    public init(
        id: Int64, sessionId: Int64, startedAt: Date, endedAt: Date, steps: Int, cadence: Double,
        dominantType: String, kind: String
    ) {
        self.id = id
        self.sessionId = sessionId
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.steps = steps
        self.cadence = cadence
        self.dominantType = dominantType
        self.kind = kind
    }

    enum CodingKeys: String, CodingKey {
        case id, steps, cadence, kind
        case sessionId = "session_id"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case dominantType = "dominant_type"
    }
}
