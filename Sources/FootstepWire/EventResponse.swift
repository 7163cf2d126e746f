import FootstepCore
import Foundation

/// One detected impact (`GET /v1/events`, `GET /v1/events/{id}`, each line of `/v1/events/live`).
public struct EventResponse: Codable, Sendable, Equatable {
    public var id: Int64
    public var sessionId: Int64
    /// Onset time (UTC, millisecond precision).
    public var timestamp: Date
    /// Seconds.
    public var duration: Double
    public var kind: EventKind
    /// The current type: the latest revision's (see `revised_from`), or the live one.
    public var type: FootstepType
    /// Confidence of `type`, 0…1.
    public var confidence: Double
    public var intensity: Intensity
    /// Maximum A-weighted Fast level, dB(A).
    public var laMax: Double
    /// Maximum C-weighted Fast level, dB(C).
    public var lcMax: Double?
    /// Sample peak, dBFS.
    public var peakDBFS: Double
    /// Sound exposure level, dB(A).
    public var sel: Double
    /// Background level before the event, dB(A).
    public var backgroundLA: Double?
    public var notes: String
    public var boutId: Int64?
    /// True when an audio clip of the event was saved (`GET /v1/events/{id}/clip`).
    public var hasClip: Bool
    /// SHA-256 of the event in the evidence chain.
    public var hash: String
    /// The type the event was stored with live, when a later revision (the bout
    /// typer, once the whole bout was heard) changed `type`; absent otherwise.
    public var revisedFrom: FootstepType?

    public init(
        id: Int64, sessionId: Int64, timestamp: Date, duration: Double, kind: EventKind, type: FootstepType,
        confidence: Double, intensity: Intensity, laMax: Double, lcMax: Double?, peakDBFS: Double, sel: Double,
        backgroundLA: Double?, notes: String, boutId: Int64?, hasClip: Bool, hash: String,
        revisedFrom: FootstepType? = nil
    ) {
        self.id = id
        self.sessionId = sessionId
        self.timestamp = timestamp
        self.duration = duration
        self.kind = kind
        self.type = type
        self.confidence = confidence
        self.intensity = intensity
        self.laMax = laMax
        self.lcMax = lcMax
        self.peakDBFS = peakDBFS
        self.sel = sel
        self.backgroundLA = backgroundLA
        self.notes = notes
        self.boutId = boutId
        self.hasClip = hasClip
        self.hash = hash
        self.revisedFrom = revisedFrom
    }

    enum CodingKeys: String, CodingKey {
        case id, timestamp, duration, kind, type, confidence, intensity, sel, notes, hash
        case sessionId = "session_id"
        case laMax = "la_max"
        case lcMax = "lc_max"
        case peakDBFS = "peak_dbfs"
        case backgroundLA = "background_la"
        case boutId = "bout_id"
        case hasClip = "has_clip"
        case revisedFrom = "revised_from"
    }
}

/// `PATCH /v1/events/{id}`: notes are the only editable field (they are outside the evidence hash).
public struct EventPatchRequest: Codable, Sendable, Equatable {
    public var notes: String

    public init(notes: String) { self.notes = notes }
}
