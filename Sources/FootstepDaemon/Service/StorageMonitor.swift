import FootstepStore
import Foundation
import Glibc
import Logging

/// Watches the state directory's file system and applies retention.
///
/// - Disk reserve: below `retention.minimum_free_bytes` free, audio writing
///   is suspended (events, levels and clips go on) and the status and journal
///   say so; it resumes once free space is back above the reserve plus a small
///   margin (so it does not flap around the threshold).
/// - Retention: full audio files are deleted oldest first while their total
///   exceeds `maximum_audio_bytes` or they are older than `maximum_audio_days`;
///   their rows stay, marked pruned, with their SHA-256. Event clips, mark
///   clips and the database are never deleted. The file being written is never
///   a candidate (only closed files are), nor are the files around a diary
///   mark until its clip is cut (``MarkClips``, before each pass).
///
/// - Note: Used by the service's task only.
struct StorageMonitor {
    let stateDirectory: String
    let database: FootstepDatabase
    let logger: Logger
    let markClips: MarkClips
    private(set) var diskLow = false

    init(stateDirectory: String, clipDirectory: String, database: FootstepDatabase, logger: Logger) {
        self.stateDirectory = stateDirectory
        self.database = database
        self.logger = logger
        markClips = MarkClips(database: database, clipDirectory: clipDirectory, logger: logger)
    }

    /// Free bytes for unprivileged users on the file system holding `path` (statvfs), nil if unknown.
    static func freeBytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Checks free space against the reserve; returns true when `diskLow` changed.
    @discardableResult
    mutating func checkFreeSpace(minimumFreeBytes: Int64, status: SessionSink.StatusUpdate) -> Bool {
        guard let free = Self.freeBytes(at: stateDirectory) else { return false }
        status { $0.diskFreeBytes = free }
        let margin = max(minimumFreeBytes / 20, 1 << 20)
        let low = diskLow ? free < minimumFreeBytes + margin : free < minimumFreeBytes
        guard low != diskLow else { return false }
        diskLow = low
        if low {
            let message = "free disk space \(megabytes(free)) on \(stateDirectory) is below the reserve of \(megabytes(minimumFreeBytes))"
            logger.critical("\(message): audio writing suspended; events and levels are still recorded")
            status {
                $0.diskLow = true
                $0.audioWriting = false
                $0.lastError = message
            }
        } else {
            logger.notice("free disk space back to \(megabytes(free)) on \(stateDirectory): audio writing resumed")
            status {
                $0.diskLow = false
                $0.audioWriting = true
                $0.lastError = nil
            }
        }
        return true
    }

    /// Cuts the marks' clips that are due, then deletes full audio files beyond
    /// the limits (0 = no limit), oldest first.
    ///
    /// - Returns: The files pruned.
    @discardableResult
    func applyRetention(
        maximumBytes: Int64, maximumDays: Int, now: Date = Date(), status: SessionSink.StatusUpdate
    ) -> [AudioFileRecord] {
        markClips.cutDue()
        var pruned: [AudioFileRecord] = []
        do {
            let files = try database.retainedAudioFiles()
            var total = files.reduce(Int64(0)) { $0 + $1.bytes }
            let oldest = maximumDays > 0 ? now.addingTimeInterval(-Double(maximumDays) * 86_400) : nil
            for file in files {
                let tooOld = oldest.map { file.endsAt < $0 } ?? false
                let overBudget = maximumBytes > 0 && total > maximumBytes
                guard tooOld || overBudget else { break }
                if unlink(file.path) != 0 && errno != ENOENT {
                    logger.error("retention cannot delete \(file.path): \(String(cString: strerror(errno)))")
                    continue
                }
                try database.markAudioFilePruned(file.id!, at: now)
                total -= file.bytes
                pruned.append(file)
                logger.info(
                    "retention deleted audio file \(file.path) (\(tooOld ? "older than \(maximumDays) days" : "audio above \(megabytes(maximumBytes))"); its SHA-256 is kept)",
                    metadata: ["footstep.session": "\(file.sessionId)"])
            }
            status { $0.audioBytes = total }
        } catch {
            logger.error("retention failed: \(error)")
        }
        return pruned
    }
}

/// `512.0 MB`.
func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }
