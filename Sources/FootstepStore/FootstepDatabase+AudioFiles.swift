import FootstepCore
import Foundation
import GRDB

extension FootstepDatabase {
    /// Registers a new audio file as it is opened for writing.
    ///
    /// - Parameters:
    ///   - sessionId: An open session.
    ///   - path: The file's path; stored relative to the state directory when it lies
    ///     under it (``storedPath(_:)``), returned as given.
    ///   - startedAt: Wall-clock time of its first frame (the re-anchored clock).
    ///   - startFrame: Offset of its first frame in the session's sample clock.
    /// - Returns: The inserted row (frames 0, bytes 0, no checksum).
    public func addAudioFile(
        sessionId: Int64, path: String, startedAt: Date, startFrame: Int64, sampleRate: Int, channels: Int = 1,
        format: AudioFileContainer
    ) throws(StoreError) -> AudioFileRecord {
        guard startFrame >= 0, sampleRate > 0, channels > 0 else {
            throw .invalidValue("audio file \(path): start frame, sample rate and channels must not be negative")
        }
        var file = AudioFileRecord(
            sessionId: sessionId, path: storedPath(path), startedAt: startedAt, startFrame: startFrame,
            sampleRate: sampleRate, channels: channels, format: format)
        return try resolved(
            write { db in
                try Self.openSession(db, sessionId)
                try file.insert(db)
                return file
            })
    }

    /// Records progress of an open file (called every few seconds while writing), so an
    /// interrupted session's end time and the file's extent are known after a crash.
    public func updateAudioFileFrames(_ id: Int64, frames: Int64, bytes: Int64) throws(StoreError) {
        guard frames >= 0, bytes >= 0 else { throw .invalidValue("frames and bytes must not be negative") }
        try write { db in
            var file = try Self.requireAudioFile(db, id)
            guard file.closedAt == nil else {
                throw StoreError.invalidValue("audio file \(file.path) is already closed")
            }
            file.frames = frames
            file.bytes = bytes
            try file.update(db, columns: ["frames", "bytes"])
        }
    }

    /// Marks a file closed with its final size and SHA-256 (also used for files
    /// repaired at start-up, whatever the state of their session).
    ///
    /// - Parameter sha256: 64 hex digits (stored lower-case).
    public func closeAudioFile(
        _ id: Int64, sha256: String, frames: Int64, bytes: Int64, closedAt: Date = Date()
    ) throws(StoreError) {
        let checksum = try Self.validatedSHA256(sha256)
        guard frames >= 0, bytes >= 0 else { throw .invalidValue("frames and bytes must not be negative") }
        try write { db in
            var file = try Self.requireAudioFile(db, id)
            guard file.closedAt == nil else {
                throw StoreError.invalidValue("audio file \(file.path) is already closed")
            }
            file.sha256 = checksum
            file.frames = frames
            file.bytes = bytes
            file.closedAt = closedAt
            try file.update(db)
        }
    }

    /// Records that retention deleted a closed file from disk. The row stays (events keep
    /// pointing at it; reports can say the audio of that period was pruned and when) and the
    /// file leaves ``audioFileChecksums()``.
    public func markAudioFilePruned(_ id: Int64, at prunedAt: Date = Date()) throws(StoreError) {
        try write { db in
            var file = try Self.requireAudioFile(db, id)
            guard file.closedAt != nil else {
                throw StoreError.invalidValue("audio file \(file.path) is still open and cannot be pruned")
            }
            file.prunedAt = prunedAt
            try file.update(db, columns: ["prunedAt"])
        }
    }

    /// The audio files of a session, in order (by first frame: file start times
    /// can be re-anchored to the wall clock, frames never go back).
    public func audioFiles(session sessionId: Int64) throws(StoreError) -> [AudioFileRecord] {
        try read { db in
            try AudioFileRecord
                .filter(AudioFileRecord.Columns.sessionId == sessionId)
                .order(AudioFileRecord.Columns.startFrame, AudioFileRecord.Columns.id)
                .fetchAll(db)
        }.map(resolved)
    }

    /// One audio file, or nil.
    public func audioFile(_ id: Int64) throws(StoreError) -> AudioFileRecord? {
        try read { db in try AudioFileRecord.fetchOne(db, id: id) }.map(resolved)
    }

    /// Audio files not closed yet (after a crash: to repair/finalise at start-up).
    public func unclosedAudioFiles() throws(StoreError) -> [AudioFileRecord] {
        try read { db in
            try AudioFileRecord
                .filter(Column("closedAt") == nil)
                .order(AudioFileRecord.Columns.startedAt, AudioFileRecord.Columns.id)
                .fetchAll(db)
        }.map(resolved)
    }

    static func requireAudioFile(_ db: Database, _ id: Int64) throws -> AudioFileRecord {
        guard let file = try AudioFileRecord.fetchOne(db, id: id) else {
            throw StoreError.audioFileNotFound(id)
        }
        return file
    }

    /// Lower-cased `hex` if it is 64 hex digits.
    static func validatedSHA256(_ hex: String) throws(StoreError) -> String {
        let lower = hex.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else {
            throw .invalidValue("'\(hex)' is not a SHA-256 (64 hex digits)")
        }
        return lower
    }
}
