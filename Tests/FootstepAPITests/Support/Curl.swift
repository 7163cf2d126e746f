import FootstepTesting
import FootstepWire
import Foundation

/// Runs `curl` against the control socket (through ``Subprocess``), optionally as
/// an unprivileged user through `setpriv`.
enum Curl {
    struct Result: Sendable {
        var status: Int
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T { try APIJSON.decoder.decode(type, from: body) }
    }

    /// The unprivileged user of the `setpriv` tests (`nobody`).
    static let nobody: uid_t = 65534

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") }
    static var canDropPrivileges: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    /// `curl --unix-socket SOCKET -X METHOD http://localhost PATH`, returning status and body.
    ///
    /// curl runs from a plain thread: waiting for it on one of Swift concurrency's
    /// few threads could starve the in-process daemon that must answer it.
    static func request(
        _ method: String = "GET", _ path: String, socket: String, body: String? = nil, asNobody: Bool = false,
        groups: [gid_t] = [], extra: [String] = [], maxTime: Double = 20
    ) async throws -> Result {
        var arguments = ["-s", "-S", "--max-time", String(maxTime), "--unix-socket", socket, "-X", method]
        var bodyFile: String?
        if let body {
            // Large bodies go through a file (argv is limited).
            let file = NSTemporaryDirectory() + "/footstepd-curl-\(UUID().uuidString).json"
            try body.write(toFile: file, atomically: false, encoding: .utf8)
            chmod(file, 0o644)
            bodyFile = file
            arguments += ["-H", "Content-Type: application/json", "--data-binary", "@\(file)"]
        }
        defer { if let bodyFile { try? FileManager.default.removeItem(atPath: bodyFile) } }
        arguments += extra + ["-w", "\n%{http_code}", "http://localhost\(path)"]
        let finalArguments = arguments
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try run(finalArguments, asNobody: asNobody, groups: groups) }) }
                .start()
        }
    }

    /// `curl` with `arguments` (must end in `-w '\n%{http_code}' URL`); with `asNobody`, as nobody:nogroup holding
    /// the supplementary `groups` (none by default).
    static func run(_ arguments: [String], asNobody: Bool = false, groups: [gid_t] = []) throws -> Result {
        let held = groups.isEmpty ? "--clear-groups" : "--groups=" + groups.map(String.init).joined(separator: ",")
        let argv =
            asNobody
            ? ["/usr/bin/setpriv", "--reuid=\(nobody)", "--regid=\(nobody)", held, "/usr/bin/curl"] + arguments
            : ["/usr/bin/curl"] + arguments
        let output = try spawn(argv)
        guard let newline = output.lastIndex(of: 0x0A), let status = Int(String(decoding: output[(newline + 1)...], as: UTF8.self))
        else {
            throw CurlError(message: "unexpected curl output: \(String(decoding: output, as: UTF8.self))")
        }
        return Result(status: status, body: Data(output[..<newline]))
    }

    struct CurlError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Runs `argv` off Swift concurrency's threads and returns its stdout.
    static func spawnOffPool(_ argv: [String]) async throws -> Data {
        try await Subprocess.runOffPool(argv[0], Array(argv.dropFirst()), environment: ["PATH": "/usr/bin:/bin"]).output
    }

    /// Runs `argv` and returns its stdout.
    static func spawn(_ argv: [String]) throws -> Data {
        try Subprocess.run(argv[0], Array(argv.dropFirst()), environment: ["PATH": "/usr/bin:/bin"]).output
    }
}
