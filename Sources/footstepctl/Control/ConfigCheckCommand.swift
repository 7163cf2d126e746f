import ArgumentParser
import Foundation

extension FootstepCtl.Config {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a configuration file before installing it or reloading the daemon.",
            discussion: """
                Runs footstepd's own loader (`footstepd --check-config`), so the verdict is exactly \
                the daemon's: every key's type and range, unknown keys, schedules and EQ bands. \
                Needs no running daemon and no access to its socket.

                Exit codes: 0 valid; 78 invalid (the message names the file, the key and why); \
                69 footstepd is not installed; 66 the file does not exist.
                """)

        @Argument(help: "The file to check.", completion: .file(extensions: ["toml"]))
        var file = "/etc/footstepd/footstepd.toml"

        @Flag(name: .customLong("print"), help: "Also print the effective configuration (defaults filled in) as TOML.")
        var printEffective = false

        func run() throws {
            guard FileManager.default.fileExists(atPath: file) else {
                throw CommandFailure.report(CommandFailure("no configuration file at \(file)", exitCode: 66))
            }
            guard let footstepd = Self.footstepdExecutable else {
                throw CommandFailure.report(
                    CommandFailure("footstepd is not installed (looked next to footstepctl and on PATH)", exitCode: 69))
            }
            let (status, output, errors) = try Self.run(footstepd, ["--check-config", "--config", file])
            guard status == 0 else {
                // footstepd's message already names the file and key: pass it on as one line.
                let message = errors.trimmingCharacters(in: .whitespacesAndNewlines)
                    .replacingOccurrences(of: "footstepd: ", with: "")
                throw CommandFailure.report(CommandFailure(message, exitCode: status == 78 ? 78 : 1))
            }
            print("\(file): valid")
            if printEffective { print(output, terminator: "") }
        }

        /// footstepd next to this executable (a build directory, /usr/local/bin…), else on PATH or in sbin.
        static var footstepdExecutable: String? {
            let here = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            let sibling = here.appendingPathComponent("footstepd").path
            if FileManager.default.isExecutableFile(atPath: sibling) { return sibling }
            return ClipPlayer.findExecutable("footstepd")
                ?? ["/usr/sbin/footstepd", "/usr/local/sbin/footstepd"].first { FileManager.default.isExecutableFile(atPath: $0) }
        }

        private static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String, String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // The effective configuration is a few kB and fits the pipe buffer: reading stderr first cannot deadlock.
            let errorData = errors.fileHandleForReading.readDataToEndOfFile()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
        }
    }
}
