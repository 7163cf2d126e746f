import FootstepAudio
import FootstepStore
import Foundation
import Logging

/// What start-up does after a crash, kill or power cut: repairs or finalises
/// the audio files the store still has open (WAV header lengths, FLAC
/// re-encoded to a finalised file), closes them with their SHA-256, and ends
/// every session left `recording`/`paused` as `interrupted` at the end of its
/// last written data (taking the repaired files' true ends into account).
public struct StartupRecovery {
    public struct Report: Sendable, Equatable {
        /// Files repaired or found complete, with the frames they hold.
        public var files: [AudioFileRepair.Result] = []
        /// Sessions closed as interrupted.
        public var interruptedSessions: [Int64] = []
    }

    let database: FootstepDatabase
    let audioDirectory: String
    let logger: Logger

    public init(database: FootstepDatabase, audioDirectory: String, logger: Logger) {
        self.database = database
        self.audioDirectory = audioDirectory
        self.logger = logger
    }

    @discardableResult
    public func run() throws -> Report {
        var report = Report()
        removeLeftovers()
        var ends: [Int64: Date] = [:]
        for file in try database.unclosedAudioFiles() {
            guard FileManager.default.fileExists(atPath: file.path) else {
                logger.warning("unfinished audio file \(file.path) is missing; left open in the store")
                continue
            }
            do {
                let result = try AudioFileRepair.repair(
                    path: file.path, fallbackFormat: AudioFormat(sampleRate: file.sampleRate, channels: file.channels))
                let checksum = try FileChecksum.sha256(ofFileAt: file.path)
                try database.closeAudioFile(file.id!, sha256: checksum, frames: result.frames, bytes: result.bytes)
                let end = file.startedAt.addingTimeInterval(Double(result.frames) / Double(file.sampleRate))
                if ends[file.sessionId].map({ end > $0 }) ?? true { ends[file.sessionId] = end }
                report.files.append(result)
                logger.notice(
                    "repaired unfinished audio file \(file.path): \(result.action.rawValue), \(result.frames) frames recovered",
                    metadata: ["message_id": "\(MessageID.fileRepaired)", "footstep.session": "\(file.sessionId)"])
            } catch {
                logger.error("cannot repair audio file \(file.path): \(error)")
            }
        }
        report.interruptedSessions = try database.closeInterruptedSessions { ends[$0.id!] }
        for id in report.interruptedSessions {
            logger.notice("session \(id) was interrupted (crash or power loss); closed", metadata: ["footstep.session": "\(id)"])
        }
        return report
    }

    /// Temporary files of a repair that was itself interrupted.
    private func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: audioDirectory) else { return }
        for name in names where name.hasSuffix(".repair") {
            try? FileManager.default.removeItem(atPath: "\(audioDirectory)/\(name)")
        }
    }
}
