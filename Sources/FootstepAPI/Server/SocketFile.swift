import Foundation
import Logging

/// The control socket's file and its lock: keeps a second daemon from stealing
/// the path (binding a Unix socket replaces the file, PLATFORM.md pitfall 12),
/// removes a stale socket left by a crash, sets the socket's mode and group once
/// it listens, and removes it on shutdown.
///
/// The lock is an `flock` on `<socket>.lock` next to the socket, held for the
/// server's lifetime; the kernel drops it when the process dies, so a crash
/// never leaves the path locked.
final class SocketFile: Sendable {
    let path: String
    let lockPath: String
    private let lockDescriptor: Int32

    /// Takes the lock and removes a stale socket file.
    ///
    /// - Throws: ``ControlServerError/alreadyRunning(path:)`` when another process holds the lock.
    init(path: String, logger: Logger) throws(ControlServerError) {
        self.path = path
        self.lockPath = path + ".lock"
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            } catch {
                throw .cannotPrepare(path: directory, reason: error.localizedDescription)
            }
        }
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotPrepare(path: lockPath, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            if busy { throw .alreadyRunning(path: path) }
            throw .cannotPrepare(path: lockPath, reason: reason)
        }
        lockDescriptor = descriptor
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                flock(descriptor, LOCK_UN)
                close(descriptor)
                throw .cannotPrepare(path: path, reason: "exists and is not a socket; refusing to replace it")
            }
            unlink(path)
            logger.notice("removed a stale control socket left by a previous run", metadata: ["socket.path": "\(path)"])
        }
    }

    /// Sets the listening socket's mode and, when the group exists and may be
    /// given, its group. Returns the group actually set (nil: left as created).
    @discardableResult
    func restrict(mode: mode_t, group: String, logger: Logger) -> String? {
        if chmod(path, mode) != 0 {
            logger.warning("cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
        guard let gid = AccessPolicy.gid(named: group) else {
            logger.notice(
                "group '\(group)' does not exist: the control socket keeps the daemon's group; create the group to let its members read (e.g. systemd-sysusers)",
                metadata: ["socket.path": "\(path)"])
            return nil
        }
        guard chown(path, uid_t.max, gid) == 0 else {
            logger.notice(
                "cannot give the control socket to group '\(group)' (\(String(cString: strerror(errno)))); it keeps the daemon's group",
                metadata: ["socket.path": "\(path)"])
            return nil
        }
        return group
    }

    /// Removes the socket file and releases the lock (the lock file stays: removing
    /// it could let two processes lock two different files of the same name).
    func release() {
        unlink(path)
        flock(lockDescriptor, LOCK_UN)
        close(lockDescriptor)
    }
}

/// Why the control server cannot start.
public enum ControlServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process holds the socket's lock.
    case alreadyRunning(path: String)
    /// The socket's directory or lock file cannot be created or used.
    case cannotPrepare(path: String, reason: String)

    public var description: String {
        switch self {
        case let .alreadyRunning(path):
            return "another footstepd is already serving the control socket \(path) (its lock \(path).lock is held); "
                + "stop it first, or give this one another socket path (--socket)"
        case let .cannotPrepare(path, reason):
            return "cannot prepare the control socket at \(path): \(reason)"
        }
    }
}
