import ArgumentParser
import FootstepAudio
import FootstepCore
import FootstepStore
import FootstepStoreWire
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Recordings: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the audio files footstepd recorded, or copy a time range out of them as one file.",
            discussion: """
                Reads footstepd's database read-only (the daemon may be running).

                Examples:
                  footstepctl recordings list
                  footstepctl recordings list --session 3 --json
                  footstepctl recordings export --from "2026-11-20 23:10" --to "2026-11-20 23:25" -o landing.flac
                """,
            subcommands: [List.self, ExportRange.self], defaultSubcommand: List.self)
    }
}

extension FootstepCtl.Recordings {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Each audio file: its session, start, duration, size, SHA-256 and state.",
            discussion: """
                State: open (being written), closed (complete, SHA-256 recorded) or pruned \
                (deleted by retention; its row and SHA-256 stay). --json prints one array of \
                { "id", "session", "path", "started_at", "duration_seconds", "bytes", "sha256", \
                "state", "sample_rate", "channels", "format" }, as `GET /v1/recordings` does.
                """)

        @Option(help: "Only this session's files (see `footstepctl sessions`).")
        var session: Int64?

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        @OptionGroup var store: StoreLocationOptions

        func run() throws {
            let database = try store.openReadOnly()
            let sessions = try session.map { [$0] } ?? database.sessions().compactMap(\.session.id)
            var files: [AudioFileRecord] = []
            for id in sessions {
                guard try database.session(id) != nil else { throw ValidationError("There is no session \(id) in \(store.path).") }
                files += try database.audioFiles(session: id)
            }
            files.sort { $0.startedAt < $1.startedAt }
            if json {
                // The wire form of `GET /v1/recordings`.
                FileHandle.standardOutput.write(try APIJSON.encoder.encode(files.map(RecordingResponse.init)))
                print()
                return
            }
            guard !files.isEmpty else {
                print("no audio files\(session.map { " in session \($0)" } ?? "") in \(store.path)")
                return
            }
            var table = TextTable([
                .init(header: "ID", right: true), .init(header: "SESSION", right: true), .init(header: "STARTED"),
                .init(header: "DURATION", right: true), .init(header: "SIZE", right: true), .init(header: "STATE"),
                .init(header: "SHA-256", flexible: true, minimum: 12),
            ])
            for file in files {
                let line = RecordingResponse(file)
                table.append([
                    String(line.id), String(line.session), HumanFormat.time(line.startedAt),
                    HumanFormat.duration(line.durationSeconds), HumanFormat.bytes(line.bytes), line.state, line.sha256 ?? "-",
                ])
            }
            table.render(width: Terminal.standardOutput.width).forEach { print($0) }
            let total = files.reduce(into: (seconds: 0.0, bytes: Int64(0))) { sum, file in
                sum.seconds += Double(file.frames) / Double(file.sampleRate)
                if file.prunedAt == nil { sum.bytes += file.bytes }
            }
            print("\(files.count) file(s), \(HumanFormat.duration(total.seconds)) recorded, \(HumanFormat.bytes(total.bytes)) on disk")
        }
    }

    struct ExportRange: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Copy a time range out of the rolled audio files as one file.",
            discussion: """
                The range must lie within one session (a session's files share one sample clock). \
                Time the files do not hold (before the session, a device loss, pruned files) \
                is left out, and the command says how much of the range the file covers.
                """)

        @Option(parsing: .unconditional, help: ArgumentHelp("Start of the range (\(TimeArgument.help)).", valueName: "TIME"))
        var from: TimeArgument

        @Option(parsing: .unconditional, help: ArgumentHelp("End of the range, excluded.", valueName: "TIME"))
        var to: TimeArgument

        @Option(name: .shortAndLong, help: "The audio file to write (.flac or .wav).", completion: .file(extensions: ["flac", "wav"]))
        var output: String

        @OptionGroup var store: StoreLocationOptions

        func validate() throws {
            guard from.date < to.date else { throw ValidationError("--to must be after --from.") }
            guard AudioFileContainer(pathExtension: output) != nil else {
                throw ValidationError("--output must end in .flac or .wav, got '\(output)'.")
            }
        }

        func run() throws {
            let database = try store.openReadOnly()
            var overlapping: [AudioFileRecord] = []
            for summary in try database.sessions() {
                overlapping += try database.audioFiles(session: summary.session.id!).filter {
                    $0.frames > 0 && $0.startedAt < to.date && $0.endsAt > from.date
                }
            }
            let available = overlapping.filter { $0.prunedAt == nil && FileManager.default.fileExists(atPath: $0.path) }
            guard let first = available.min(by: { $0.startFrame < $1.startFrame }) else {
                let reason = overlapping.isEmpty ? "no audio was recorded then" : "its audio files were pruned by retention"
                throw ValidationError("Nothing to export between \(from.date) and \(to.date): \(reason).")
            }
            let sessions = Set(available.map(\.sessionId))
            guard sessions.count == 1 else {
                throw ValidationError(
                    "The range spans sessions \(sessions.sorted().map(String.init).joined(separator: ", ")); export each session's part on its own.")
            }
            let files = available.filter { $0.sessionId == first.sessionId }.sorted { $0.startFrame < $1.startFrame }
            let rate = Double(first.sampleRate)
            guard let range = AudioFileRecord.frames(of: files, from: from.date, to: to.date) else {
                throw ValidationError("Nothing to export between \(from.date) and \(to.date): no audio was recorded then.")
            }
            let container = AudioFileContainer(pathExtension: output)!
            let sources = files.map { ClipExtractor.Source(path: $0.path, startFrame: $0.startFrame, frames: $0.frames) }
            let joins = ClipExtractor.joins(of: sources, startFrame: range.lowerBound, endFrame: range.upperBound)
            let joinLines = joins.map { join in
                Self.describe(join, rate: rate, sessionStart: first.startedAt.addingTimeInterval(-Double(first.startFrame) / rate))
            }
            let comment = "footstepd session \(first.sessionId), from \(ExportDate.iso(from.date)) to \(ExportDate.iso(to.date)); "
                + (joins.isEmpty ? "continuous" : "\(joins.count) join(s) over audio not recorded: " + joinLines.joined(separator: "; "))
            let written: Int64
            do {
                written = try ClipExtractor.extract(
                    from: sources, startFrame: range.lowerBound, endFrame: range.upperBound,
                    format: AudioFormat(sampleRate: first.sampleRate, channels: first.channels), container: container,
                    to: output, comment: comment)
            } catch {
                throw ValidationError("Cannot export: \(error)")
            }
            let seconds = Double(written) / rate
            let asked = to.date.timeIntervalSince(from.date)
            print(
                "wrote \(output): \(HumanFormat.duration(seconds)) of session \(first.sessionId) from \(files.count) file(s)"
                    + (seconds < asked - 1 ? "; the range asked for is \(HumanFormat.duration(asked)), the rest was not recorded" : ""))
            if !joins.isEmpty {
                print("the file joins audio across \(joins.count) stretch(es) not recorded (also in its comment tag):")
                for line in joinLines { print("  \(line)") }
            }
        }

        /// "at 0:01:30.000 of the file, 45.2 s not recorded (2026-11-20T23:11:30Z to 2026-11-20T23:12:15Z)".
        static func describe(_ join: ClipExtractor.Join, rate: Double, sessionStart: Date) -> String {
            let at = Double(join.outputFrame) / rate
            let begins = sessionStart.addingTimeInterval(Double(join.sessionFrame) / rate)
            let missing = Double(join.missingFrames) / rate
            let position = String(
                format: "%d:%02d:%06.3f", Int(at) / 3600, Int(at) / 60 % 60, at.truncatingRemainder(dividingBy: 60))
            return "at \(position) of the file, \(HumanFormat.duration(missing)) not recorded "
                + "(\(ExportDate.iso(begins)) to \(ExportDate.iso(begins.addingTimeInterval(missing))))"
        }
    }
}
