import ArgumentParser
import FootstepReports
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Diary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep the noise diary councils ask for: what happened, when, for how long, its effect.",
            discussion: ControlExitCodes.discussion(
                """
                Entries are stored by footstepd in its evidence store, each chained to the one \
                before by SHA-256 like the events (footstepctl verify checks them), with the \
                time they were written. Reports list them with the events in time order. \
                Writing needs the admin group.

                Examples:
                  footstepctl diary add "Stomping overhead, woke us up" --at "2026-11-23 23:40" --duration 20m
                  footstepctl diary add "Running back and forth for an hour"
                  footstepctl diary list --from yesterday
                """),
            subcommands: [Add.self, List.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Write a diary entry.")

            @Argument(help: "What happened and its effect.") var text: String
            @Option(help: ArgumentHelp("When it happened: \(TimeArgument.help). Default: now.", valueName: "TIME"))
            var at: TimeArgument?
            @Option(help: ArgumentHelp("How long it lasted: 90s, 20m, 1.5h.", valueName: "DURATION"))
            var duration: DurationArgument?
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func validate() throws {
                if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    throw ValidationError("Say what happened: footstepctl diary add \"Stomping overhead\".")
                }
                if let at, at.date > Date() { throw ValidationError("--at must not be in the future.") }
            }

            func run() async throws {
                try await connection.withClient { client in
                    let entry = try await client.addDiaryEntry(
                        DiaryEntryRequest(kind: "note", at: at?.date, durationSeconds: duration?.seconds, text: text))
                    if output.json { return try OutputOptions.printJSON(entry) }
                    print("diary entry \(entry.id) written: \(HumanFormat.time(entry.at))\(entry.durationSeconds.map { " for " + ReportDuration.text($0) } ?? "")")
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the diary, oldest first (marks included).")

            @Option(help: ArgumentHelp("From this time: \(TimeArgument.help).", valueName: "TIME")) var from: TimeArgument?
            @Option(help: ArgumentHelp("Up to this time (excluded).", valueName: "TIME")) var to: TimeArgument?
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let entries = try await client.diary(from: from?.date, to: to?.date)
                    if output.json { return try OutputOptions.printJSON(entries) }
                    if entries.isEmpty { return print("the diary is empty for this period") }
                    for entry in entries {
                        let length = entry.durationSeconds.map { " (\(ReportDuration.text($0)))" } ?? ""
                        print("#\(entry.id)  \(HumanFormat.time(entry.at))\(length)  \(entry.kind == "mark" ? "MARK " : "")\(entry.text)")
                    }
                }
            }
        }
    }

    struct Mark: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark \"now\" in the diary: one command while it happens.",
            discussion: ControlExitCodes.discussion(
                """
                Like the button on a council's noise recorder: writes a diary entry of kind \
                "mark" at this moment, with an optional word about it. Reports list marks with \
                the events around them. Writing needs the admin group.

                Examples:
                  footstepctl mark
                  footstepctl mark "jumping again"
                """))

        @Argument(help: "A word about it (optional).") var text: String = ""
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await connection.withClient { client in
                let entry = try await client.addDiaryEntry(DiaryEntryRequest(kind: "mark", text: text))
                if output.json { return try OutputOptions.printJSON(entry) }
                print("marked \(HumanFormat.time(entry.at)) (diary entry \(entry.id))")
            }
        }
    }
}

/// A length of time on the command line: `90s`, `20m`, `1.5h`, or plain seconds.
struct DurationArgument: ExpressibleByArgument, Sendable {
    let seconds: Double

    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var text = Substring(argument.lowercased())
        var unit = 1.0
        if let last = text.last, let factor = units[last] {
            unit = factor
            text = text.dropLast()
        }
        guard let value = Double(text), value.isFinite, value >= 0, value * unit <= 86_400 else { return nil }
        seconds = value * unit
    }
}
