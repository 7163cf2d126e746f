import FootstepClassifier
import Foundation

extension DaemonConfiguration {
    /// Checks what the daemon itself needs from the machine, as the user running
    /// the check: the state directory and the socket's directory can be written
    /// or created. footstepd runs it at start, on reload and with
    /// `--check-config`, on the effective paths (after `--state-dir` and `--socket`).
    ///
    /// - Parameter file: The configuration file, for the error.
    /// - Throws: ``ConfigurationError`` naming the key and what is wrong.
    public func checkEnvironment(file: String) throws(ConfigurationError) {
        if let problem = Self.writableDirectoryProblem(stateDirectory) {
            throw ConfigurationError(file: file, key: "paths.state_dir", message: "\(stateDirectory) \(problem)")
        }
        let socketDirectory = (socket.path as NSString).deletingLastPathComponent
        if let problem = Self.writableDirectoryProblem(socketDirectory) {
            throw ConfigurationError(
                file: file, key: "socket.path", message: "the socket's directory \(socketDirectory) \(problem)")
        }
    }

    /// The classifier model the daemon runs: `detection.model_path`, or the shipped one
    /// (``FootstepModel/bundled()``). The daemon loads it at start, `--check-config` the same way.
    public func loadModel() throws(ClassifierError) -> FootstepModel {
        if let path = detection.modelPath { return try FootstepModel.load(contentsOf: URL(fileURLWithPath: path)) }
        return try FootstepModel.bundled()
    }

    /// Checks that the model loads (``loadModel()``). `--check-config` runs it: an installed footstepd
    /// that cannot find its model says so here, not by failing at start.
    public func checkModel(file: String) throws(ConfigurationError) {
        do {
            _ = try loadModel()
        } catch {
            throw ConfigurationError(file: file, key: "detection.model_path", message: "\(error)")
        }
    }

    /// Checks that the metrics address resolves (when the listener is on).
    /// `--check-config` and reload run it; at start an address that does not
    /// resolve (DNS not up yet at boot) only keeps the metrics listener off,
    /// and the daemon records.
    public func checkMetricsAddress(file: String) throws(ConfigurationError) {
        if metrics.port > 0, let problem = Self.addressProblem(metrics.address, port: metrics.port) {
            throw ConfigurationError(file: file, key: "metrics.address", message: "'\(metrics.address)' \(problem)")
        }
    }

    /// Checks that `reports.directory`, when set, can be written or created.
    /// Only `--check-config` runs it: the scheduled report writes there from
    /// its own unit, which the daemon's sandbox does not share.
    public func checkReportEnvironment(file: String) throws(ConfigurationError) {
        guard let directory = reports.directory else { return }
        if let problem = Self.writableDirectoryProblem(directory) {
            throw ConfigurationError(file: file, key: "reports.directory", message: "\(directory) \(problem)")
        }
    }

    /// Why `path` cannot be used as a directory to write in, or nil when it can:
    /// it is a directory a file can be created in, or it does not exist and the
    /// nearest existing ancestor is (so it can be created).
    static func writableDirectoryProblem(_ path: String) -> String? {
        var candidate = path
        var missing = false
        while true {
            var info = stat()
            if stat(candidate, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    return candidate == path ? "is not a directory" : "cannot be created: \(candidate) is not a directory"
                }
                var filesystem = statvfs()
                if statvfs(candidate, &filesystem) == 0, filesystem.f_flag & UInt(ST_RDONLY) != 0 {
                    return "is on a read-only file system"
                }
                if let error = probeWrite(candidate) {
                    let verb = missing ? "cannot be created: \(candidate) is not writable" : "is not writable"
                    return "\(verb) by uid \(geteuid()) (\(String(cString: strerror(error))); the user footstepd runs as must be able to write there)"
                }
                return nil
            }
            guard errno == ENOENT || errno == ENOTDIR else {
                return "cannot be checked: \(String(cString: strerror(errno)))"
            }
            missing = true
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { return "cannot be created" }
            candidate = parent
        }
    }

    /// Creates and removes a file in `directory`; the errno when that fails.
    /// (A real write: permission bits do not tell for root, ACLs or pseudo-file systems.)
    static func probeWrite(_ directory: String) -> Int32? {
        var template = Array("\(directory)/.footstepd-check-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return errno }
        close(descriptor)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return nil
    }

    /// Why `address` cannot be listened on, or nil when it resolves to an address.
    static func addressProblem(_ address: String, port: Int) -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address, String(port), &hints, &result)
        if let result { freeaddrinfo(result) }
        guard status == 0 else {
            return "does not resolve to an address to listen on (\(String(cString: gai_strerror(status))))"
        }
        return nil
    }
}
