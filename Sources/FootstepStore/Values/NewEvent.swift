import FootstepCore
import Foundation

/// An event to append: the evidence fields only. The store assigns the id, the
/// hash and the chain link (see ``FootstepDatabase/appendEvents(_:)``).
@dynamicMemberLookup
public struct NewEvent: Sendable, Hashable, Codable {
    /// The session the event belongs to (must be `recording` or `paused`).
    public var sessionId: Int64
    /// The audio file holding the event, if any.
    public var audioFileId: Int64?
    /// Position of the onset in the session's sample clock.
    public var frameOffset: Int64
    /// Onset time (UTC): the clock anchor plus frames / sample rate,
    /// see ``timestamp(anchor:anchorFrame:frameOffset:sampleRate:)``.
    public var timestamp: Date
    /// The label and levels (read as `event.laMax`, …); the store checks they are finite.
    public var measurements: EventMeasurements
    /// Initial notes (outside the hash; may be edited later).
    public var notes: String

    /// Creates an event to append.
    public init(
        sessionId: Int64, audioFileId: Int64? = nil, frameOffset: Int64, timestamp: Date, measurements: EventMeasurements,
        notes: String = ""
    ) {
        self.sessionId = sessionId
        self.audioFileId = audioFileId
        self.frameOffset = frameOffset
        self.timestamp = timestamp
        self.measurements = measurements
        self.notes = notes
    }

    /// A measured field (`event.laMax`, `event.type`, …).
    public subscript<Value>(dynamicMember field: WritableKeyPath<EventMeasurements, Value>) -> Value {
        get { measurements[keyPath: field] }
        set { measurements[keyPath: field] = newValue }
    }

    /// The sample-accurate wall-clock time of `frameOffset`: `anchor` is the wall-clock
    /// time of frame `anchorFrame` (the session start, or the start of the current audio
    /// file after a re-anchor).
    public static func timestamp(anchor: Date, anchorFrame: Int64 = 0, frameOffset: Int64, sampleRate: Int) -> Date {
        anchor.addingTimeInterval(Double(frameOffset - anchorFrame) / Double(sampleRate))
    }
}
