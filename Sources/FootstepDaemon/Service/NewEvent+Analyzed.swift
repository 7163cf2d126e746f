import FootstepAnalysis
import FootstepStore
import Foundation

extension NewEvent {
    /// The store's row for an event of the pipeline: non-finite levels become
    /// -200 dB (or nil where the column allows it), the duration is at least 0
    /// and the confidence within 0…1, as the store requires.
    init(
        _ event: AnalyzedEvent, sessionId: Int64, audioFileId: Int64?, frameOffset: Int64, timestamp: Date,
        notes: String = ""
    ) {
        self.init(
            sessionId: sessionId, audioFileId: audioFileId, frameOffset: frameOffset, timestamp: timestamp,
            duration: max(0, event.durationSeconds.isFinite ? event.durationSeconds : 0), kind: event.kind,
            type: event.type, confidence: min(1, max(0, event.confidence.isFinite ? event.confidence : 0)),
            intensity: event.intensity, laMax: finite(event.laMax), lcMax: event.lcMax.isFinite ? event.lcMax : nil,
            peakDBFS: finite(event.peakDBFS), sel: finite(event.sel),
            backgroundLA: event.backgroundLA.isFinite ? event.backgroundLA : nil, notes: notes)
    }
}
