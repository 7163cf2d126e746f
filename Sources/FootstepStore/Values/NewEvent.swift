import FootstepCore
import Foundation

/// An event to append: the evidence fields only. The store assigns the id, the
/// hash and the chain link (see ``FootstepDatabase/appendEvents(_:)``).
public struct NewEvent: Sendable, Hashable {
    /// The session the event belongs to (must be `recording` or `paused`).
    public var sessionId: Int64
    /// The audio file holding the event, if any.
    public var audioFileId: Int64?
    /// Position of the onset in the session's sample clock.
    public var frameOffset: Int64
    /// Onset time (UTC): the clock anchor plus frames / sample rate,
    /// see ``timestamp(anchor:anchorFrame:frameOffset:sampleRate:)``.
    public var timestamp: Date
    /// Duration in seconds.
    public var duration: Double
    /// Footstep or other.
    public var kind: EventKind
    /// Footstep type.
    public var type: FootstepType
    /// Classifier confidence, 0…1.
    public var confidence: Double
    /// Loudness relative to the background.
    public var intensity: Intensity
    /// Maximum A-weighted fast level, dB(A).
    public var laMax: Double
    /// Maximum C-weighted fast level, dB(C).
    public var lcMax: Double?
    /// Sample peak, dBFS.
    public var peakDBFS: Double
    /// Sound exposure level, dB(A).
    public var sel: Double
    /// Background level just before the event, dB(A) (see `EventRecord.backgroundLA`).
    public var backgroundLA: Double?
    /// Initial notes (outside the hash; may be edited later).
    public var notes: String

    /// Creates an event to append.
    public init(
        sessionId: Int64, audioFileId: Int64? = nil, frameOffset: Int64, timestamp: Date,
        duration: Double, kind: EventKind, type: FootstepType, confidence: Double, intensity: Intensity,
        laMax: Double, lcMax: Double? = nil, peakDBFS: Double, sel: Double, backgroundLA: Double? = nil,
        notes: String = ""
    ) {
        self.sessionId = sessionId
        self.audioFileId = audioFileId
        self.frameOffset = frameOffset
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
    }

    /// The sample-accurate wall-clock time of `frameOffset`: `anchor` is the wall-clock
    /// time of frame `anchorFrame` (the session start, or the start of the current audio
    /// file after a re-anchor).
    public static func timestamp(anchor: Date, anchorFrame: Int64 = 0, frameOffset: Int64, sampleRate: Int) -> Date {
        anchor.addingTimeInterval(Double(frameOffset - anchorFrame) / Double(sampleRate))
    }
}
