import FootstepCore
import Foundation

/// One detected impact (`GET /v1/events`, `GET /v1/events/{id}`, each line of `/v1/events/live`).
///
/// Its label and levels are the store's ``EventMeasurements`` (read as
/// `event.laMax`, …), with `type` and `confidence` the current ones (the latest
/// revision's). On the wire they are flat keys beside the others, in snake case
/// (`la_max`, `peak_dbfs`, `background_la`).
@dynamicMemberLookup
public struct EventResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var sessionId: Int64
    /// Onset time (UTC, millisecond precision).
    public var timestamp: Date
    /// Duration, label (the current kind and type: see `revisedFrom`) and levels.
    public var measurements: EventMeasurements
    public var notes: String
    public var boutId: Int64?
    /// True when an audio clip of the event was saved (`GET /v1/events/{id}/clip`).
    public var hasClip: Bool
    /// SHA-256 of the event in the evidence chain.
    public var hash: String
    /// The label the event was stored with live (its type for a footstep,
    /// `other` otherwise), when a later revision (the gait context once the
    /// impacts around it were heard, the bout typer once its whole bout was)
    /// changed the label; absent otherwise.
    public var revisedFrom: String?
    /// What a person who reviewed it said (`confirmed`, `rejected`); absent while nobody has.
    public var review: ReviewVerdict?

    public init(
        id: Int64, sessionId: Int64, timestamp: Date, measurements: EventMeasurements, notes: String, boutId: Int64?,
        hasClip: Bool, hash: String, revisedFrom: String? = nil, review: ReviewVerdict? = nil
    ) {
        self.id = id
        self.sessionId = sessionId
        self.timestamp = timestamp
        self.measurements = measurements
        self.notes = notes
        self.boutId = boutId
        self.hasClip = hasClip
        self.hash = hash
        self.revisedFrom = revisedFrom
        self.review = review
    }

    /// A measured field (`event.laMax`, `event.type`, …).
    public subscript<Value>(dynamicMember field: WritableKeyPath<EventMeasurements, Value>) -> Value {
        get { measurements[keyPath: field] }
        set { measurements[keyPath: field] = newValue }
    }

    /// The wire's names: the measurements' in snake case, then the event's own.
    enum CodingKeys: String, CodingKey {
        case duration, kind, type, confidence, intensity, sel
        case laMax = "la_max"
        case lcMax = "lc_max"
        case peakDBFS = "peak_dbfs"
        case backgroundLA = "background_la"
        case id, timestamp, notes, hash, review
        case sessionId = "session_id"
        case boutId = "bout_id"
        case hasClip = "has_clip"
        case revisedFrom = "revised_from"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int64.self, forKey: .id)
        sessionId = try c.decode(Int64.self, forKey: .sessionId)
        timestamp = try c.decode(Date.self, forKey: .timestamp)
        measurements = EventMeasurements(
            duration: try c.decode(Double.self, forKey: .duration), kind: try c.decode(EventKind.self, forKey: .kind),
            type: try c.decode(FootstepType.self, forKey: .type), confidence: try c.decode(Double.self, forKey: .confidence),
            intensity: try c.decode(Intensity.self, forKey: .intensity), laMax: try c.decode(Double.self, forKey: .laMax),
            lcMax: try c.decodeIfPresent(Double.self, forKey: .lcMax), peakDBFS: try c.decode(Double.self, forKey: .peakDBFS),
            sel: try c.decode(Double.self, forKey: .sel), backgroundLA: try c.decodeIfPresent(Double.self, forKey: .backgroundLA))
        notes = try c.decode(String.self, forKey: .notes)
        boutId = try c.decodeIfPresent(Int64.self, forKey: .boutId)
        hasClip = try c.decode(Bool.self, forKey: .hasClip)
        hash = try c.decode(String.self, forKey: .hash)
        revisedFrom = try c.decodeIfPresent(String.self, forKey: .revisedFrom)
        review = try c.decodeIfPresent(ReviewVerdict.self, forKey: .review)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(sessionId, forKey: .sessionId)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encode(measurements.duration, forKey: .duration)
        try c.encode(measurements.kind, forKey: .kind)
        try c.encode(measurements.type, forKey: .type)
        try c.encode(measurements.confidence, forKey: .confidence)
        try c.encode(measurements.intensity, forKey: .intensity)
        try c.encode(measurements.laMax, forKey: .laMax)
        try c.encodeIfPresent(measurements.lcMax, forKey: .lcMax)
        try c.encode(measurements.peakDBFS, forKey: .peakDBFS)
        try c.encode(measurements.sel, forKey: .sel)
        try c.encodeIfPresent(measurements.backgroundLA, forKey: .backgroundLA)
        try c.encode(notes, forKey: .notes)
        try c.encodeIfPresent(boutId, forKey: .boutId)
        try c.encode(hasClip, forKey: .hasClip)
        try c.encode(hash, forKey: .hash)
        try c.encodeIfPresent(revisedFrom, forKey: .revisedFrom)
        try c.encodeIfPresent(review, forKey: .review)
    }
}

/// `PATCH /v1/events/{id}`: notes are the only editable field (they are outside the evidence hash).
public struct EventPatchRequest: Codable, Sendable, Equatable {
    public var notes: String

    public init(notes: String) { self.notes = notes }
}
