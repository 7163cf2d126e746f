import Foundation

/// One footstepd per state directory: an exclusive `flock` on
/// `<state_dir>/footstepd.lock`, taken before start-up recovery touches the
/// store and held until the daemon ends.
///
/// A second daemon started on the same directory (by hand, while the service
/// runs, with the same or another socket) would otherwise recover the live
/// session, close it as interrupted and record into the same database. The
/// kernel drops the lock when its process dies, so a kill never leaves the
/// directory locked. The lock file holds the holder's process id, for the
/// error a second daemon gives; the file itself stays (removing it could let
/// two processes lock two different files of the same name).
final class StateDirectoryLock: Sendable {
    let path: String
    private let descriptor: Int32

    /// Creates the state directory if needed and takes its lock.
    ///
    /// - Throws: ``DaemonError`` naming the holder when another process holds
    ///   the lock, or why the directory or lock file cannot be used.
    init(stateDirectory: String) throws(DaemonError) {
        path = (stateDirectory as NSString).appendingPathComponent("footstepd.lock")
        do {
            try FileManager.default.createDirectory(
                atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw DaemonError("cannot create the state directory \(stateDirectory): \(error.localizedDescription)")
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw DaemonError("cannot open the state directory's lock \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            let holder = Self.holder(descriptor)
            close(descriptor)
            guard busy else { throw DaemonError("cannot lock the state directory's lock \(path): \(reason)") }
            throw DaemonError(
                "another footstepd\(holder.map { " (pid \($0))" } ?? "") is using the state directory \(stateDirectory) "
                    + "(it holds \(path)); stop it first (systemctl stop footstepd), or give this one another "
                    + "state directory (--state-dir)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    /// The process id the holder wrote into the lock file, if any.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Releases the lock (the file stays).
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
