import ArgumentParser
import FootstepCore
import FootstepStore
import Foundation

extension FootstepCtl {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export a session or a time range as JSON (restorable with `footstepctl import`).",
            discussion: """
                Reads footstepd's database read-only and writes every row of the session (or of \
                the sessions overlapping the range): the session, its events with notes, bout ids, \
                clip paths and their hash-chain fields, audio files with their SHA-256, gaps, bouts, \
                per-minute levels and calibrations. Times are ISO-8601 UTC with milliseconds.

                --session writes one SessionExport: { "format", "appVersion", "exportedAt", \
                "range": null, "session", "audioFiles", "gaps", "bouts", "levels", "calibrations", \
                "events" }. --from/--to writes a RangeExport: { "format", "appVersion", \
                "exportedAt", "range", "sessions": [SessionExport…] }, each session holding only \
                its rows in the range (events and levels starting in it; bouts and audio files \
                its events use).

                Set SOURCE_DATE_EPOCH to fix "exportedAt" (identical data then gives identical bytes).

                Examples:
                  footstepctl export --session 3 -o session-3.json
                  footstepctl export --from 2026-11-20T22:00 --to 2026-11-21T08:00 -o night.json
                """)

        @Option(help: "The session to export (see `footstepctl sessions`).")
        var session: Int64?

        @Option(parsing: .unconditional, help: ArgumentHelp("Start of the range (\(TimeArgument.help)).", valueName: "TIME"))
        var from: TimeArgument?

        @Option(parsing: .unconditional, help: ArgumentHelp("End of the range, excluded.", valueName: "TIME"))
        var to: TimeArgument?

        @Option(name: .shortAndLong, help: "The JSON file to write, or - for stdout.", completion: .file(extensions: ["json"]))
        var output: String

        @OptionGroup var store: StoreLocationOptions

        func validate() throws {
            switch (session, from, to) {
            case (.some, nil, nil): break
            case (nil, .some(let from), .some(let to)):
                guard from.date < to.date else { throw ValidationError("--to must be after --from.") }
            case (.some, _, _): throw ValidationError("Give either --session or --from and --to, not both.")
            default: throw ValidationError("Give --session ID, or both --from and --to.")
            }
        }

        func run() throws {
            let database = try store.openReadOnly()
            let document: ExportDocument
            if let session {
                document = .session(try database.exportSession(session, appVersion: FootstepVersion.current, exportedAt: ExportClock.now))
            } else {
                document = .range(
                    try database.exportRange(
                        from: from!.date, to: to!.date, appVersion: FootstepVersion.current, exportedAt: ExportClock.now))
            }
            let data = try document.encoded()
            let events = document.sessions.reduce(0) { $0 + $1.events.count }
            if output == "-" {
                FileHandle.standardOutput.write(data)
            } else {
                try data.write(to: URL(fileURLWithPath: output), options: .atomic)
                print("wrote \(output): \(document.sessions.count) session(s), \(events) event(s)")
            }
        }
    }
}
