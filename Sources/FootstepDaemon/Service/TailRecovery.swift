import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepStore
import Foundation
import Logging

/// Finds the events a kill lost: those the pipeline had detected, or not yet
/// reached, while their audio was already on disk. Start-up recovery runs it
/// for each interrupted session after repairing its files: the end of the
/// session's last audio file, from a little before its last stored event, goes
/// through the same pipeline (model, calibration, equalizer, minimum
/// confidence: `analysis`), and the events it finds that were not stored are
/// appended to the chain with a note saying they were recovered. Events leave
/// the pipeline in onset order, each within
/// `AnalysisConfiguration.maximumEventDelay` of its onset, and are stored in
/// batches: every onset from that long before the last stored one on is
/// compared with the stored ones. Settlements of provisional events the kill
/// caught are not made again (the tail has less context than the live
/// analysis had): those events keep their first label.
struct TailRecovery {
    /// Seconds analysed before the last stored event, so the detector knows
    /// the background when it reaches the unstored part.
    static let lead = 20.0
    /// The most audio analysed: the pipeline delays an event by seconds at most
    /// and the store is written every second, so anything older was stored.
    static let longestTail = 300.0
    /// An event within this of a stored onset is taken to be that one.
    static let sameEventSeconds = 0.05
    /// The note of a recovered event.
    static let note = "recovered at start-up from the audio recorded before an interruption"

    let database: FootstepDatabase
    let analysis: AnalysisConfiguration
    /// Loads the classifier's model (only when there is a tail to analyse).
    let model: () throws -> FootstepModel
    let logger: Logger

    /// Analyses the tail of `session`'s last audio file and stores the events
    /// after its last stored event; returns how many.
    func recover(session sessionId: Int64) throws -> Int {
        guard let file = try database.audioFiles(session: sessionId).max(by: { $0.startFrame < $1.startFrame }),
            file.frames > 0, FileManager.default.fileExists(atPath: file.path)
        else { return 0 }
        let rate = Double(file.sampleRate)
        let fileEnd = file.startFrame + file.frames
        let lastStored = try database.lastEventFrame(session: sessionId)
        var start = max(fileEnd - Int64(Self.longestTail * rate), file.startFrame)
        if let lastStored { start = max(start, min(lastStored, fileEnd) - Int64(Self.lead * rate)) }
        start = max(start, file.startFrame)

        let source = try AudioFileSource(path: file.path)
        defer { source.close() }
        try source.seek(toFrame: Int(start - file.startFrame))
        let result = try FileAnalysis.analyse(
            source: source, configuration: analysis, classifier: try FootstepModelClassifier(model: model()))
        let same = Int64(Self.sameEventSeconds * rate)
        // Anything earlier had left the pipeline, and was stored, before the last stored event did.
        let unsettled = lastStored.map { $0 - Int64(analysis.maximumEventDelay * rate) } ?? start
        let stored = try database.eventFrames(session: sessionId, from: unsettled - same)
        let events: [NewEvent] = result.events.compactMap { event in
            let frame = start + event.onsetFrame
            guard frame >= unsettled, frame < fileEnd, !Self.contains(stored, within: same, of: frame) else { return nil }
            return NewEvent(
                event, sessionId: sessionId, audioFileId: file.id, frameOffset: frame,
                timestamp: NewEvent.timestamp(
                    anchor: file.startedAt, anchorFrame: file.startFrame, frameOffset: frame, sampleRate: file.sampleRate),
                notes: Self.note)
        }
        guard !events.isEmpty else { return 0 }
        try database.appendEvents(events)
        logger.notice(
            "session \(sessionId): \(events.count) events recovered from the last \(String(format: "%.1f", Double(fileEnd - start) / rate)) s of \(file.path)",
            metadata: ["footstep.session": "\(sessionId)"])
        return events.count
    }

    /// Whether ascending `frames` has one within `tolerance` of `frame`.
    static func contains(_ frames: [Int64], within tolerance: Int64, of frame: Int64) -> Bool {
        var low = 0
        var high = frames.count
        while low < high {
            let middle = (low + high) / 2
            if frames[middle] < frame - tolerance { low = middle + 1 } else { high = middle }
        }
        return low < frames.count && frames[low] <= frame + tolerance
    }
}
