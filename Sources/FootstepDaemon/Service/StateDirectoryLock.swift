import Foundation

/// One footstepd per state directory: an exclusive `flock` on
/// `<state_dir>/footstepd.lock`, taken before start-up recovery touches the
/// store and held until the daemon ends.
///
/// A second daemon started on the same directory (by hand, while the service
/// runs, with the same or another socket) would otherwise recover the live
/// session, close it as interrupted and record into the same database. The
/// kernel drops the lock when its process dies, so a kill never leaves the
/// directory locked. The lock file holds the holder's process id and control
/// socket, for the error a second daemon gives; the file itself stays (removing it could let
/// two processes lock two different files of the same name).
final class StateDirectoryLock: Sendable {
    let path: String
    private let descriptor: Int32

    /// Creates the state directory if needed and takes its lock.
    ///
    /// - Throws: ``DaemonError`` naming the holder when another process holds
    ///   the lock, or why the directory or lock file cannot be used.
    /// - Parameter socket: The control socket this daemon serves (nil: none), written beside its process id.
    init(stateDirectory: String, socket: String?) throws(DaemonError) {
        path = (stateDirectory as NSString).appendingPathComponent("footstepd.lock")
        do {
            try FileManager.default.createDirectory(
                atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw .stateDirectoryUnusable(path: stateDirectory, reason: error.localizedDescription)
        }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw .stateDirectoryUnusable(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            let holder = Self.holder(descriptor)
            close(descriptor)
            guard busy else { throw .stateDirectoryUnusable(path: path, reason: reason) }
            throw .stateDirectoryInUse(directory: stateDirectory, lock: path, holder: holder.pid, socket: holder.socket)
        }
        let content = Array("\(getpid())\n\(socket ?? "")\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = content.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    /// The process id and control socket the holder wrote into the lock file (a line each), as far as it did.
    private static func holder(_ descriptor: Int32) -> (pid: Int32?, socket: String?) {
        var buffer = [UInt8](repeating: 0, count: 4_200)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return (nil, nil) }
        let lines = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").map(String.init)
        let socket = lines.count > 1 && !lines[1].isEmpty ? lines[1] : nil
        return (lines.first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }, socket)
    }

    /// Releases the lock (the file stays).
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
