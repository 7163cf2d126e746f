import FootstepAudio
import FootstepCore
import FootstepStore
import Foundation
import Logging

/// The audio files of one session in the store: each registered when the
/// writer opens it, closed with its SHA-256 (retried while the store refuses,
/// e.g. a full disk), its extent kept current so a crash leaves it in the
/// store, and which file holds a given frame (an event is reported after its
/// onset, possibly once the next file has started).
///
/// - Note: Used by the service's task only, through ``SessionSink``.
struct SessionAudioFiles {
    let database: FootstepDatabase
    let sessionId: Int64
    let sampleRate: Int
    let channels: Int
    let logger: Logger

    private var ids: [String: Int64] = [:]
    /// The file being written, if audio is being written.
    private var current: (id: Int64, startFrame: Int64)?
    /// The session's files by first frame.
    private var ranges: [(id: Int64, startFrame: Int64, endFrame: Int64?)] = []
    /// Closed files the store could not record yet: retried at each flush.
    private var pendingCloses: [(id: Int64, file: RollingAudioWriter.ClosedFile)] = []

    init(database: FootstepDatabase, sessionId: Int64, sampleRate: Int, channels: Int, logger: Logger) {
        self.database = database
        self.sessionId = sessionId
        self.sampleRate = sampleRate
        self.channels = channels
        self.logger = logger
    }

    private var metadata: Logger.Metadata { ["footstep.session": "\(sessionId)"] }

    /// Registers a file the writer opened.
    mutating func open(_ file: RollingAudioWriter.OpenedFile) {
        do {
            let record = try database.addAudioFile(
                sessionId: sessionId, path: file.path, startedAt: file.startedAt, startFrame: file.startFrame,
                sampleRate: sampleRate, channels: channels, format: AudioFileContainer(pathExtension: file.path) ?? .flac)
            ids[file.path] = record.id!
            current = (record.id!, file.startFrame)
            ranges.append((record.id!, file.startFrame, nil))
        } catch {
            logger.error("cannot register audio file \(file.path): \(error)", metadata: metadata)
        }
        if let drift = file.clockDrift {
            logger.info(
                "clock re-anchored to the wall clock at file roll: drift \(milliseconds(drift))",
                metadata: metadata.merging(["footstep.clock_drift_ms": "\(Int((drift * 1000).rounded()))"]) { $1 })
        }
    }

    /// Records a file the writer closed (or keeps it for a retry); returns the
    /// wall-clock time of its end.
    mutating func close(_ file: RollingAudioWriter.ClosedFile) -> Date {
        if current.map({ ids[file.path] == $0.id }) ?? false { current = nil }
        let end = file.startedAt.addingTimeInterval(Double(file.frames) / Double(sampleRate))
        guard let id = ids[file.path] else { return end }
        if let index = ranges.lastIndex(where: { $0.id == id }) {
            ranges[index].endFrame = file.startFrame + file.frames
        }
        if !recordClose(id: id, file, firstAttempt: true) { pendingCloses.append((id, file)) }
        return end
    }

    /// Audio stopped being written (device lost, writing failed or suspended).
    mutating func audioStopped() { current = nil }

    /// Tries again to record the closes the store refused.
    mutating func retryPendingCloses() {
        guard !pendingCloses.isEmpty else { return }
        pendingCloses = pendingCloses.filter { !recordClose(id: $0.id, $0.file, firstAttempt: false) }
    }

    /// The file holding `frame`, if audio was being written then (none while audio
    /// writing was suspended or the device lost).
    func file(at frame: Int64) -> Int64? {
        ranges.last { $0.startFrame <= frame && ($0.endFrame.map { frame < $0 } ?? true) }?.id
    }

    /// Records the open file's progress so a crash leaves its extent in the store.
    func recordProgress(framesWritten: Int64) {
        guard let current else { return }
        let frames = max(0, framesWritten - current.startFrame)
        try? database.updateAudioFileFrames(current.id, frames: frames, bytes: 0)
    }

    /// Records a closed file with its SHA-256; false when the store refused (retry later).
    private func recordClose(id: Int64, _ file: RollingAudioWriter.ClosedFile, firstAttempt: Bool) -> Bool {
        do {
            let checksum = try FileChecksum.sha256(ofFileAt: file.path)
            try database.closeAudioFile(id, sha256: checksum, frames: file.frames, bytes: file.bytes)
            logger.info("audio file closed: \(file.path), \(file.frames) frames", metadata: metadata)
            return true
        } catch {
            if firstAttempt {
                logger.error("cannot close audio file \(file.path) in the store (will retry): \(error)", metadata: metadata)
            }
            return false
        }
    }
}
