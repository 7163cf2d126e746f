import FootstepStore
import FootstepWire
import Foundation

// The wire form of each stored record, for the server's routes and for
// footstepctl's offline commands that print what the API would. The wire types
// (FootstepWire) know nothing of the store, so the socket client does not link it.

extension EventResponse {
    /// The wire form of a stored event: its current label (the latest
    /// revision's) and, when a revision changed it, the live label it replaced.
    public init(_ event: EventRecord) {
        var measurements = event.measurements
        measurements.kind = event.currentKind
        measurements.type = event.currentType
        measurements.confidence = event.currentConfidence
        self.init(
            id: event.id ?? 0, sessionId: event.sessionId, timestamp: event.timestamp, measurements: measurements,
            notes: event.notes, boutId: event.boutId, hasClip: event.clipPath != nil, hash: event.hash,
            revisedFrom: event.currentKind == event.kind && event.currentType == event.type
                ? nil : event.kind.label(event.type),
            review: event.reviewVerdict)
    }
}

extension SessionResponse {
    /// The wire form of a store summary.
    public init(_ summary: SessionSummary) {
        let session = summary.session
        self.init(
            id: session.id ?? 0, title: session.title, notes: session.notes, status: session.status.rawValue,
            startedAt: session.startedAt, endedAt: session.endedAt, durationSeconds: summary.duration,
            device: session.device, sampleRate: session.sampleRate, channels: session.channels,
            timeZone: session.timeZone, eventCount: summary.eventCount, footstepCount: summary.footstepCount,
            audioFileCount: summary.audioFileCount, audioBytes: summary.audioBytes, gapCount: summary.gapCount,
            gapSeconds: summary.gapSeconds, endReason: session.endReason)
    }
}

extension LevelMinuteResponse {
    /// The wire form of a stored level interval.
    public init(_ level: LevelMinuteRecord) {
        self.init(
            id: level.id ?? 0, sessionId: level.sessionId, startedAt: level.startedAt, seconds: level.seconds,
            laeq: level.laeq, lceq: level.lceq, lafMax: level.lafMax, lafMin: level.lafMin, la10: level.la10,
            la90: level.la90)
    }
}

extension BoutResponse {
    /// The wire form of a stored bout.
    public init(_ bout: BoutRecord) {
        self.init(
            id: bout.id ?? 0, sessionId: bout.sessionId, startedAt: bout.startedAt, endedAt: bout.endedAt,
            steps: bout.steps, cadence: bout.cadence, dominantType: bout.dominantType.rawValue,
            kind: bout.kind.rawValue)
    }
}

extension RecordingResponse {
    /// The wire form of a stored audio file: `pruned` once retention deleted
    /// it, `open` while it is written, else `closed`.
    public init(_ file: AudioFileRecord) {
        self.init(
            id: file.id ?? 0, session: file.sessionId, path: file.path, startedAt: file.startedAt,
            durationSeconds: Double(file.frames) / Double(file.sampleRate), bytes: file.bytes, sha256: file.sha256,
            state: file.prunedAt != nil ? "pruned" : file.closedAt == nil ? "open" : "closed",
            sampleRate: file.sampleRate, channels: file.channels, format: file.format.rawValue)
    }
}

extension CalibrationResponse {
    /// The wire form of a stored calibration.
    public init(_ record: CalibrationRecord) {
        self.init(
            id: record.id ?? 0, measuredAt: record.measuredAt, offsetDB: record.offsetDB, method: record.method,
            reference: record.reference)
    }
}

extension DiaryEntryResponse {
    /// The wire form of a stored diary entry.
    public init(_ record: DiaryEntryRecord) {
        self.init(
            id: record.id ?? 0, kind: record.kind.rawValue, at: record.at, durationSeconds: record.duration,
            text: record.text, writtenAt: record.writtenAt, hash: record.hash)
    }
}
