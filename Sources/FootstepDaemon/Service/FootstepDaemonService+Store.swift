import FootstepClassifier
import FootstepConfiguration
import FootstepCore
import FootstepStore
import Foundation
import Glibc

extension FootstepDaemonService {
    /// Opens the store, first making the state directory private: whatever
    /// umask footstepd was started with, the files it creates are at most
    /// 0640 and its directories 0750 (umask 027), and the state, audio and clip
    /// directories are set to 0750 even when an earlier run or a person left
    /// them open.
    func openStore(_ configuration: DaemonConfiguration) throws -> FootstepDatabase {
        umask(0o027)
        do {
            for directory in [configuration.audioDirectory, configuration.clipDirectory] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            for directory in [configuration.stateDirectory, configuration.audioDirectory, configuration.clipDirectory] {
                try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: directory)
            }
        } catch {
            throw DaemonError.stateDirectoryUnusable(path: configuration.stateDirectory, reason: error.localizedDescription)
        }
        return try FootstepDatabase.open(path: configuration.databasePath, pageCacheKiB: Self.storePageCacheKiB)
    }

    /// The SQLite page cache of each of the daemon's store connections, in KiB.
    ///
    /// SQLite's default (2,000 KiB per connection) is never reached by a short
    /// run but is by a daemon: the writer keeps every page it has appended to,
    /// so its cache grew by about 1.5 MB per day of events and levels until the
    /// limit, and each reader can fill its own. The daemon's writes touch the
    /// last leaf and the interior pages of about 25 tables and indexes (well
    /// under 100 pages of 4 KiB); its reads (control-socket queries,
    /// housekeeping) start from a cache that a WAL commit by the writer has
    /// reset anyway. Pages beyond the budget are read again from the kernel's
    /// page cache.
    static let storePageCacheKiB = 512

    /// Counts today's events again from the store (after a deletion took some of them away).
    func recountToday() {
        guard let database, let from = status.eventsTodayFrom else { return }
        let to = WallClockZone.local.startOfNextDay(after: from)
        let counts = Housekeeping.eventCounts(database, from: from, to: to, logger: logger)
        update { status in
            // Unless midnight moved the day meanwhile.
            if status.eventsTodayFrom == from { status.eventsToday = counts }
        }
    }

    /// The classifier model: `detection.model_path`, or the built-in one.
    func loadModel(_ configuration: DaemonConfiguration) throws -> FootstepModel {
        do {
            return try configuration.loadModel()
        } catch {
            throw DaemonError.modelUnloadable("\(error)")
        }
    }
}
