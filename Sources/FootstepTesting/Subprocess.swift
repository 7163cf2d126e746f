import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion and collects its exit status, stdout and
/// stderr: the one runner of the test suites (curl, footstepctl, sqlite3,
/// poppler, systemd-analyze, setpriv …).
///
/// It uses posix_spawn(3) and reads both pipes with poll(2) on the calling
/// thread: Foundation's `Process` on Linux can deadlock in `waitUntilExit` when
/// tests spawn at once, and a child that fills one pipe while the parent waits
/// on the other would hang.
public enum Subprocess {
    /// What a finished child left.
    public struct Result: Sendable {
        /// Its exit status, or 128 + the signal that killed it.
        public var status: Int32
        public var output: Data
        public var errorOutput: Data

        public var stdout: String { String(decoding: output, as: UTF8.self) }
        public var stderr: String { String(decoding: errorOutput, as: UTF8.self) }
    }

    /// Why a child could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    /// The environment children get unless told otherwise: PATH and no colour.
    public static let plainEnvironment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "NO_COLOR": "1"]

    /// Runs `executable arguments…` (an absolute path, stdin /dev/null) and waits for it.
    ///
    /// - Parameter environment: The child's whole environment (default ``plainEnvironment``).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = plainEnvironment
    ) throws -> Result {
        let output = try Pipe()
        let errors = try Pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var pid: pid_t = 0
        let rc = posixSpawn(&pid, executable, arguments, environment, &actions, nil)
        output.closeWrite()
        errors.closeWrite()
        defer {
            output.closeRead()
            errors.closeRead()
        }
        guard rc == 0 else { throw LaunchError(description: "cannot run \(executable): \(String(cString: strerror(rc)))") }
        var collected = (Data(), Data())
        var open = [output.read, errors.read]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    open.removeAll { $0 == entry.fd }
                } else if entry.fd == output.read {
                    collected.0.append(contentsOf: buffer[0..<count])
                } else {
                    collected.1.append(contentsOf: buffer[0..<count])
                }
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return Result(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, output: collected.0, errorOutput: collected.1)
    }

    /// Starts `executable arguments…` in the background (stdin /dev/null, stdout appended to `output` or
    /// /dev/null, stderr /dev/null) and returns its pid; end it with ``end(_:signal:)``. For servers and
    /// subscribers a test runs beside it (Foundation's `Process.waitUntilExit` spins on Linux).
    public static func spawn(_ executable: String, _ arguments: [String], output: String? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Signals the test process blocks or ignores (its daemon's SIGTERM handling) are the child's defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posixSpawn(&pid, executable, arguments, plainEnvironment, &actions, &attributes)
        guard rc == 0 else { throw LaunchError(description: "cannot run \(executable): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// posix_spawn(3) of `executable arguments…` with `environment`, the C strings freed after.
    private static func posixSpawn(
        _ pid: inout pid_t, _ executable: String, _ arguments: [String], _ environment: [String: String],
        _ actions: UnsafePointer<posix_spawn_file_actions_t>, _ attributes: UnsafePointer<posix_spawnattr_t>?
    ) -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        return posix_spawn(&pid, executable, actions, attributes, argv, envp)
    }

    /// Sends `signal` to a child of ``spawn(_:_:output:)`` and reaps it.
    public static func end(_ pid: pid_t, signal: Int32 = SIGTERM) {
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Whether a child of ``spawn(_:_:output:)`` still runs (a zombie does not).
    public static func isRunning(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// ``run(_:_:environment:)`` on a plain thread, so that waiting for the
    /// child does not hold one of Swift concurrency's few threads (an in-process
    /// daemon the child talks to needs them).
    public static func runOffPool(
        _ executable: String, _ arguments: [String], environment: [String: String] = plainEnvironment
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try run(executable, arguments, environment: environment) }) }.start()
        }
    }

    /// Both ends of a pipe(2), close-on-exec (the child gets them through dup2).
    private final class Pipe {
        private(set) var read: Int32
        private(set) var write: Int32

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw LaunchError(description: "pipe failed: errno \(errno)") }
            read = ends[0]
            write = ends[1]
            _ = fcntl(read, F_SETFD, FD_CLOEXEC)
            _ = fcntl(write, F_SETFD, FD_CLOEXEC)
        }

        func closeRead() {
            if read >= 0 { close(read) }
            read = -1
        }

        func closeWrite() {
            if write >= 0 { close(write) }
            write = -1
        }

        deinit {
            closeRead()
            closeWrite()
        }
    }
}
