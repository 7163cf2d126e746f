import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server of a test's own: a new cluster in a temporary directory (initdb), on loopback, on a
/// free port, trusting local connections; never the system's instance. Run as root (CI), the cluster belongs to
/// the `postgres` user, since PostgreSQL refuses to run as root.
public final class PostgresServer: @unchecked Sendable {
    /// Debian's PostgreSQL 15 (`.ci/apt-packages.txt` installs it).
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "\(binaries)/initdb") }

    public let directory: TemporaryDirectory
    public let port: Int
    public let user = "fleet"
    private var running = false

    /// A new cluster with a database named like ``user``.
    public init() throws {
        directory = try TemporaryDirectory(prefix: "footstepd-postgres")
        port = try MosquittoBroker.freePort()
        if getuid() == 0 {
            guard let owner = getpwnam("postgres") else {
                throw Subprocess.LaunchError(description: "running as root, and there is no postgres user to run PostgreSQL")
            }
            chown(directory.path, owner.pointee.pw_uid, owner.pointee.pw_gid)
        }
        try run("initdb", ["-D", data, "-A", "trust", "-U", user, "--no-sync"])
    }

    deinit { stop() }

    private var data: String { directory.appending("data") }

    /// `postgres://fleet@127.0.0.1:<port>/postgres`.
    public var url: String { "postgres://\(user)@127.0.0.1:\(port)/postgres" }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        try run(
            "pg_ctl",
            ["-D", data, "-l", directory.appending("server.log"), "-w", "-t", "30", "-o",
             "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off", "start"])
        running = true
    }

    /// Stops it at once (no checkpoint): what a crash or a pulled plug does.
    public func stop() {
        guard running else { return }
        try? run("pg_ctl", ["-D", data, "-m", "immediate", "stop"])
        running = false
    }

    /// Runs `psql -c sql` against the server; its output.
    public func psql(_ sql: String) throws -> String {
        let result = try Subprocess.run(
            "/usr/bin/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", "postgres", "-At", "-c", sql])
        guard result.status == 0 else { throw Subprocess.LaunchError(description: "psql: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A PostgreSQL program, as the cluster's owner.
    private func run(_ program: String, _ arguments: [String]) throws {
        let path = "\(Self.binaries)/\(program)"
        let result =
            getuid() == 0
            ? try Subprocess.run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
            : try Subprocess.run(path, arguments)
        guard result.status == 0 else {
            throw Subprocess.LaunchError(description: "\(program): \(result.stderr)\(result.stdout)")
        }
    }
}
