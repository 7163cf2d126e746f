import ArgumentParser
import Foundation

extension FootstepCtl {
    struct Clip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save an event's audio clip (the seconds before and after its onset) to a file.",
            discussion: ControlExitCodes.discussion(
                "The clip is written as the daemon stores it (FLAC or WAV); `-o -` writes it to stdout."))

        @Argument(help: "The event id.") var event: Int64
        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the clip (`-` for stdout).", valueName: "FILE"), completion: .file())
        var output: String
        @OptionGroup(title: "Connection") var connection: ConnectionOptions

        func run() async throws {
            try await connection.withClient { client in
                let clip = try await client.clip(event)
                if output == "-" {
                    FileHandle.standardOutput.write(clip.data)
                    return
                }
                try ClipPlayer.write(clip.data, to: output)
                FileHandle.standardError.write(
                    Data("wrote \(HumanFormat.bytes(Int64(clip.data.count))) (\(clip.contentType ?? "audio")) to \(output)\n".utf8))
            }
        }
    }

    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play an event's audio clip through paplay (PulseAudio/PipeWire) or aplay (ALSA).",
            discussion: ControlExitCodes.discussion(
                "The clip is downloaded to a temporary file, played, and removed. Needs paplay "
                    + "(pulseaudio-utils) or aplay (alsa-utils) on PATH; aplay cannot play FLAC clips."))

        @Argument(help: "The event id.") var event: Int64
        @Option(help: ArgumentHelp("Player to use instead of the first of paplay, aplay found on PATH.", valueName: "COMMAND"))
        var player: String?
        @OptionGroup(title: "Connection") var connection: ConnectionOptions

        func run() async throws {
            try await connection.withClient { client in
                let clip = try await client.clip(event)
                let flac = clip.contentType == "audio/flac" || clip.data.starts(with: Array("fLaC".utf8))
                let candidates = player.map { [$0] } ?? (flac ? ["paplay"] : ["paplay", "aplay"])
                guard let executable = candidates.lazy.compactMap(ClipPlayer.findExecutable).first else {
                    throw CommandFailure(
                        "no audio player found: install pulseaudio-utils (paplay)"
                            + (flac ? "" : " or alsa-utils (aplay)") + ", or save the clip with `footstepctl clip \(event) -o FILE`",
                        exitCode: 69)
                }
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("footstepctl-clip-\(event)-\(getpid()).\(flac ? "flac" : "wav")").path
                try ClipPlayer.write(clip.data, to: file)
                defer { try? FileManager.default.removeItem(atPath: file) }
                let status = try ClipPlayer.run(executable, [file])
                guard status == 0 else {
                    throw CommandFailure("\(executable) failed with exit code \(status)", exitCode: 1)
                }
            }
        }
    }
}

/// Writing clips, and finding and running a player.
enum ClipPlayer {
    static func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("cannot write \(path): \(error.localizedDescription)", exitCode: 73)
        }
    }

    /// `name` if it is a path to an executable, else its first match on PATH.
    static func findExecutable(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a player in the foreground, inheriting the terminal; returns its exit status.
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        do {
            try process.run()
        } catch {
            throw CommandFailure("cannot run \(executable): \(error.localizedDescription)", exitCode: 69)
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
