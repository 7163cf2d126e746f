import FootstepAnalysis
import FootstepAudio
import FootstepCore
import FootstepStore
import Foundation
import Logging

/// Turns the capture thread's reports into store rows and journal entries for
/// one session: audio files as they open and close (with their SHA-256),
/// events and level intervals in batches, gaps after a device loss.
///
/// - Note: Used by the service's task only.
struct SessionSink {
    let database: FootstepDatabase
    let sessionId: Int64
    let sampleRate: Int
    let channels: Int
    let logger: Logger

    private var fileIds: [String: Int64] = [:]
    private var currentFile: (id: Int64, startFrame: Int64)?
    /// Files of the session by first frame (an event is reported after its onset,
    /// possibly once the next file has started).
    private var fileStarts: [(id: Int64, startFrame: Int64)] = []
    private var pendingEvents: [NewEvent] = []
    private var pendingLevels: [LevelMinuteRecord] = []
    private var failedFlushes = 0
    private(set) var storedEvents = 0
    /// The latest wall-clock instant of written data (end of a file, level interval or event).
    private(set) var lastDataTime: Date?
    /// A fatal capture error, if the capture thread stopped on one.
    private(set) var failure: String?

    init(database: FootstepDatabase, sessionId: Int64, sampleRate: Int, channels: Int, logger: Logger) {
        self.database = database
        self.sessionId = sessionId
        self.sampleRate = sampleRate
        self.channels = channels
        self.logger = logger
    }

    private var sessionMetadata: Logger.Metadata { ["footstep.session": "\(sessionId)"] }

    private mutating func noteData(_ time: Date) {
        if lastDataTime.map({ time > $0 }) ?? true { lastDataTime = time }
    }

    mutating func handle(_ reports: [CaptureReport], status: ((inout DaemonStatus) -> Void) -> Void) {
        for report in reports {
            switch report {
            case let .fileOpened(file):
                do {
                    let record = try database.addAudioFile(
                        sessionId: sessionId, path: file.path, startedAt: file.startedAt, startFrame: file.startFrame,
                        sampleRate: sampleRate, channels: channels, format: AudioFileContainer(pathExtension: file.path) ?? .flac)
                    fileIds[file.path] = record.id!
                    currentFile = (record.id!, file.startFrame)
                    fileStarts.append((record.id!, file.startFrame))
                } catch {
                    logger.error("cannot register audio file \(file.path): \(error)", metadata: sessionMetadata)
                }
            case let .fileClosed(file):
                closeFile(file)
                status { $0.closedFiles += 1 }
            case let .event(event, timestamp):
                pendingEvents.append(newEvent(event, timestamp: timestamp))
                noteData(timestamp.addingTimeInterval(event.durationSeconds))
            case let .levels(levels, startedAt):
                let seconds = Double(levels.frames) / Double(sampleRate)
                guard seconds > 0 else { continue }
                pendingLevels.append(
                    LevelMinuteRecord(
                        sessionId: sessionId, startedAt: startedAt, seconds: seconds, laeq: finite(levels.laeq),
                        lceq: finite(levels.lceq), lafMax: finite(levels.lafMax), lafMin: finite(levels.lafMin),
                        la10: finite(levels.la10), la90: finite(levels.la90)))
                noteData(startedAt.addingTimeInterval(seconds))
            case let .deviceLost(reason, at):
                currentFile = nil
                logger.error(
                    "capture device lost: \(reason); retrying",
                    metadata: sessionMetadata.merging(["message_id": "\(MessageID.deviceLost)"]) { $1 })
                status { $0.state = .deviceLost; $0.lastError = reason }
                _ = at
            case let .deviceRestored(lostAt, at):
                do {
                    try database.addGap(sessionId: sessionId, from: lostAt, to: at, reason: "capture device lost")
                } catch {
                    logger.error("cannot record the gap: \(error)", metadata: sessionMetadata)
                }
                logger.notice(
                    "capture device back after \(String(format: "%.1f", at.timeIntervalSince(lostAt))) s",
                    metadata: sessionMetadata.merging(["message_id": "\(MessageID.deviceRestored)"]) { $1 })
                status { $0.state = .recording; $0.lastError = nil }
            case let .audioWriteFailed(reason):
                currentFile = nil
                logger.critical("audio writing suspended: \(reason); events and levels are still recorded", metadata: sessionMetadata)
                status { $0.audioWriting = false; $0.lastError = reason }
            case .audioWriteResumed:
                logger.notice("audio writing resumed", metadata: sessionMetadata)
                status { $0.audioWriting = true }
            case let .overrun(droppedPeriods, xruns):
                // The capture thread reports changes of the counters at most every 10 s.
                logger.warning(
                    "capture overrun: \(droppedPeriods) periods dropped (pipeline behind), \(xruns) device xruns so far",
                    metadata: sessionMetadata.merging(
                        ["capture.dropped_periods": "\(droppedPeriods)", "capture.xruns": "\(xruns)"]) { $1 })
                status { $0.droppedPeriods = droppedPeriods; $0.xruns = xruns }
            case let .failed(reason):
                failure = reason
                logger.error("capture stopped: \(reason)", metadata: sessionMetadata)
            }
        }
    }

    private mutating func closeFile(_ file: RollingAudioWriter.ClosedFile) {
        if currentFile.map({ fileIds[file.path] == $0.id }) ?? false { currentFile = nil }
        noteData(file.startedAt.addingTimeInterval(Double(file.frames) / Double(sampleRate)))
        guard let id = fileIds[file.path] else { return }
        do {
            let checksum = try FileChecksum.sha256(ofFileAt: file.path)
            try database.closeAudioFile(id, sha256: checksum, frames: file.frames, bytes: file.bytes)
            logger.info(
                "audio file closed: \(file.path), \(file.frames) frames", metadata: sessionMetadata)
        } catch {
            logger.error("cannot close audio file \(file.path): \(error)", metadata: sessionMetadata)
        }
    }

    private func newEvent(_ event: AnalyzedEvent, timestamp: Date) -> NewEvent {
        NewEvent(
            sessionId: sessionId, audioFileId: fileStarts.last { $0.startFrame <= event.onsetFrame }?.id,
            frameOffset: event.onsetFrame, timestamp: timestamp,
            duration: max(0, event.durationSeconds.isFinite ? event.durationSeconds : 0), kind: event.kind,
            type: event.type, confidence: min(1, max(0, event.confidence.isFinite ? event.confidence : 0)),
            intensity: event.intensity, laMax: finite(event.laMax), lcMax: event.lcMax.isFinite ? event.lcMax : nil,
            peakDBFS: finite(event.peakDBFS), sel: finite(event.sel),
            backgroundLA: event.backgroundLA.isFinite ? event.backgroundLA : nil)
    }

    /// Records the open file's progress so a crash leaves its extent in the store.
    func recordProgress(framesWritten: Int64) {
        guard let currentFile else { return }
        let frames = max(0, framesWritten - currentFile.startFrame)
        try? database.updateAudioFileFrames(currentFile.id, frames: frames, bytes: 0)
    }

    /// Writes the pending events (one transaction, extending the hash chain)
    /// and levels, and logs each event to the journal with its fields.
    mutating func flush(status: ((inout DaemonStatus) -> Void) -> Void) {
        if !pendingEvents.isEmpty {
            do {
                let ids = try database.appendEvents(pendingEvents)
                for (id, event) in zip(ids, pendingEvents) { logEvent(id: id, event) }
                storedEvents += ids.count
                let count = ids.count
                status { $0.storedEvents += count }
                pendingEvents.removeAll(keepingCapacity: true)
                failedFlushes = 0
            } catch {
                failedFlushes += 1
                logger.error("cannot store \(pendingEvents.count) events (attempt \(failedFlushes)): \(error)", metadata: sessionMetadata)
                if failedFlushes >= 10 { pendingEvents.removeAll() }
            }
        }
        if !pendingLevels.isEmpty {
            do {
                let ids = try database.appendLevels(pendingLevels)
                let count = ids.count
                status { $0.storedLevels += count }
                pendingLevels.removeAll(keepingCapacity: true)
            } catch {
                logger.error("cannot store level intervals: \(error)", metadata: sessionMetadata)
                if pendingLevels.count > 1000 { pendingLevels.removeAll() }
            }
        }
    }

    private func logEvent(id: Int64, _ event: NewEvent) {
        let label = event.kind == .footstep ? event.type.rawValue : event.kind.rawValue
        logger.info(
            "\(label) at \(event.timestamp.formatted(.iso8601)), \(String(format: "%.1f", event.laMax)) dB(A), confidence \(String(format: "%.2f", event.confidence))",
            metadata: [
                "footstep.session": "\(sessionId)",
                "footstep.event_id": "\(id)",
                "footstep.type": "\(label)",
                "footstep.confidence": "\(String(format: "%.2f", event.confidence))",
                "footstep.level_dba": "\(String(format: "%.1f", event.laMax))",
            ])
    }
}

/// Non-finite levels (digital silence) are stored as -200 dB, far below anything audible.
private func finite(_ value: Double) -> Double { value.isFinite ? value : -200 }
