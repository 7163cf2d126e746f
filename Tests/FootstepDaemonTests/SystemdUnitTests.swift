import FootstepTesting
import Foundation
import Testing

/// The shipped units pass `systemd-analyze verify` (with ExecStart pointed at a
/// binary that exists here) and the service's exposure rating is at most 2.5.
@Suite("systemd unit files")
struct SystemdUnitTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Foundation's Process on Linux can deadlock in `waitUntilExit` when two
    /// tests wait at once (both cooperative threads of a 2-core machine blocked):
    /// one child at a time.
    static let processLock = NSLock()

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        processLock.lock()
        defer { processLock.unlock() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Copies the units into `directory`, with every ExecStart binary replaced by /bin/true.
    static func staged(in directory: TemporaryDirectory) throws -> [String] {
        let units = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("systemd").path)
            .filter { $0.hasSuffix(".service") || $0.hasSuffix(".timer") }
        var paths: [String] = []
        for unit in units.sorted() {
            var text = try String(contentsOf: repository.appendingPathComponent("systemd/\(unit)"), encoding: .utf8)
            text = text.replacingOccurrences(of: "/usr/local/bin/footstepd", with: "/bin/true")
                .replacingOccurrences(of: "/usr/local/bin/footstepctl", with: "/bin/true")
            let path = directory.appending(unit)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        return paths
    }

    @Test func unitsPassSystemdAnalyzeVerifyWithoutWarnings() throws {
        let directory = try TemporaryDirectory()
        let units = try Self.staged(in: directory)
        #expect(units.contains { $0.hasSuffix("footstepd.service") })
        let result = try Self.run(["systemd-analyze", "verify"] + units)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.isEmpty, "systemd-analyze printed warnings: \(result.output)")
    }

    @Test func theServiceExposureIsAtMost2Point5() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.staged(in: directory)
        let result = try Self.run(["systemd-analyze", "security", "--offline=true", directory.appending("footstepd.service")])
        let line = result.output.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let score = line.split(separator: " ").compactMap { Double($0) }.first
        #expect(score != nil, "no exposure line in: \(result.output)")
        #expect((score ?? 10) <= 2.5, "\(line)")
    }
}
