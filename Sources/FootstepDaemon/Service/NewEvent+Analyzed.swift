import FootstepAnalysis
import FootstepStore
import Foundation

extension NewEvent {
    /// The store's row for an event of the pipeline, its measurements made
    /// storable (``EventMeasurements/storable``).
    init(
        _ event: AnalyzedEvent, sessionId: Int64, audioFileId: Int64?, frameOffset: Int64, timestamp: Date,
        notes: String = ""
    ) {
        self.init(
            sessionId: sessionId, audioFileId: audioFileId, frameOffset: frameOffset, timestamp: timestamp,
            measurements: event.measurements.storable, notes: notes)
    }
}
