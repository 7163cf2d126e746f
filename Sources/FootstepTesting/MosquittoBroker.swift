import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real Mosquitto broker of a test's own: on loopback, on a free port, with its configuration, password file,
/// persistence and log in a temporary directory, never the system's instance. ``kill()`` is a broker that
/// crashed or a network that went away; ``start()`` brings it back on the same port.
public final class MosquittoBroker: @unchecked Sendable {
    public static let executable = "/usr/sbin/mosquitto"
    /// True when Mosquitto is installed (`.ci/apt-packages.txt` installs it).
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let directory: TemporaryDirectory
    public let port: Int
    private var pid: pid_t?

    /// - Parameters:
    ///   - users: When given, only these users (name → password) may connect.
    ///   - tls: PEM files (CA, certificate, key) for a TLS listener instead of a plain one.
    ///   - persistence: Keep sessions and queued messages across ``kill()`` and ``start()``.
    public init(
        users: [String: String]? = nil, tls: (ca: String, certificate: String, key: String)? = nil,
        persistence: Bool = false
    ) throws {
        directory = try TemporaryDirectory(prefix: "footstepd-mosquitto")
        port = try Self.freePort()
        var lines = [
            "listener \(port) 127.0.0.1",
            "log_dest file \(directory.appending("mosquitto.log"))",
            "log_type error", "log_type warning", "log_type notice",
            "max_queued_messages 100000",
        ]
        // Run as root, mosquitto would become the `mosquitto` user, who cannot read this directory.
        if let user = getpwuid(getuid())?.pointee.pw_name { lines.append("user \(String(cString: user))") }
        if let users {
            let file = directory.appending("passwords")
            try "".write(toFile: file, atomically: true, encoding: .utf8)
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                let result = try Subprocess.run("/usr/bin/mosquitto_passwd", ["-b", file, user, password])
                guard result.status == 0 else { throw Subprocess.LaunchError(description: "mosquitto_passwd: \(result.stderr)") }
            }
            lines += ["allow_anonymous false", "password_file \(file)"]
        } else {
            lines.append("allow_anonymous true")
        }
        if let tls {
            lines += ["cafile \(tls.ca)", "certfile \(tls.certificate)", "keyfile \(tls.key)"]
        }
        if persistence {
            lines += ["persistence true", "persistence_location \(directory.path)/", "autosave_interval 1"]
        }
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: directory.appending("mosquitto.conf"), atomically: true, encoding: .utf8)
    }

    deinit { kill() }

    /// `mqtt://127.0.0.1:<port>` (`mqtts://` with TLS).
    public func url(tls: Bool = false) -> String { "\(tls ? "mqtts" : "mqtt")://127.0.0.1:\(port)" }

    /// Starts the broker and waits (up to 10 s) until it accepts connections.
    public func start() throws {
        let pid = try Subprocess.spawn(Self.executable, ["-c", directory.appending("mosquitto.conf")])
        self.pid = pid
        let deadline = Date().addingTimeInterval(10)
        while !Self.accepts(port: port) {
            guard Date() < deadline, Subprocess.isRunning(pid) else {
                kill()
                throw Subprocess.LaunchError(description: "mosquitto did not start: \(log)")
            }
            usleep(20_000)
        }
    }

    /// SIGKILL: no goodbye to its clients, nothing saved since the last autosave.
    public func kill() {
        guard let pid else { return }
        Subprocess.end(pid, signal: SIGKILL)
        self.pid = nil
    }

    /// The broker's log (errors, warnings, notices).
    public var log: String { (try? String(contentsOfFile: directory.appending("mosquitto.log"), encoding: .utf8)) ?? "" }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// A TCP port nobody listens on now (the kernel's pick for port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw Subprocess.LaunchError(description: "no free TCP port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
