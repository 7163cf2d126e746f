import ArgumentParser
import FootstepClient
import FootstepCore
import FootstepWire
import Foundation

extension FootstepCtl.Events {
    static let reviewDiscussion = """
        A review is stored by footstepd as a revision of each event, hash-chained onto it \
        like every label revision, with your user name and uid (from the socket's peer \
        credentials), the time and the reason. Nothing is deleted: a rejected event stays \
        in the chain and in exports, marked, and reports leave it out of counts, rule \
        checks and charts and list it with its reason. Reviewing needs the admin group.

        Name the events by id, or a whole bout (--bout), or a time range (--from and --to: \
        every event with its onset in it). A range or a bout is one request and one write.
        """

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Confirm events: they are what their labels say.",
            discussion: ControlExitCodes.discussion(
                reviewDiscussion + """


                    Examples:
                      footstepctl events confirm 412 413 414
                      footstepctl events confirm --bout 37
                    """))
        @OptionGroup var target: ReviewTargetOptions
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws { try await target.send("confirm", connection: connection, output: output) }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reject events: not footsteps (kept, marked, and left out of counts).",
            discussion: ControlExitCodes.discussion(
                reviewDiscussion + """


                    Examples:
                      footstepctl events reject 415 --reason "a door"
                      footstepctl events reject --from "2026-12-06 23:10" --to "2026-12-06 23:40" --reason "the radio"
                    """))
        @OptionGroup var target: ReviewTargetOptions
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws { try await target.send("reject", connection: connection, output: output) }
    }

    struct Relabel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Relabel events: footsteps of another type (confirmed, with the new type).",
            discussion: ControlExitCodes.discussion(
                reviewDiscussion + """


                    Examples:
                      footstepctl events relabel stomping 420
                      footstepctl events relabel shuffling --bout 41 --reason "slippers"
                    """))
        @Argument(help: "The type: \(FootstepType.classified.map(\.rawValue).joined(separator: ", ")).")
        var type: FootstepType
        @OptionGroup var target: ReviewTargetOptions
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard type != .unknown else {
                throw ValidationError(
                    "A relabel names a footstep type: \(FootstepType.classified.map(\.rawValue).joined(separator: ", ")).")
            }
        }

        func run() async throws { try await target.send("relabel", type: type, connection: connection, output: output) }
    }
}

/// What a review covers: event ids, a bout, or a time range; and why.
struct ReviewTargetOptions: ParsableArguments {
    @Argument(help: "Event ids.") var ids: [Int64] = []
    @Option(help: "Every step of this bout (its id: footstepctl events show ID).") var bout: Int64?
    @Option(parsing: .unconditional, help: ArgumentHelp("Every event from this time (\(TimeArgument.help)).", valueName: "TIME"))
    var from: TimeArgument?
    @Option(parsing: .unconditional, help: ArgumentHelp("…up to this time (excluded).", valueName: "TIME"))
    var to: TimeArgument?
    @Option(help: ArgumentHelp("Why (kept with the review and shown in reports).", valueName: "TEXT")) var reason: String?

    func validate() throws {
        let targets = [!ids.isEmpty, bout != nil, from != nil || to != nil].filter { $0 }.count
        guard targets == 1 else {
            throw ValidationError("Name the events by id, or --bout N, or --from and --to (one of the three).")
        }
        if (from == nil) != (to == nil) { throw ValidationError("A range needs both --from and --to.") }
        if let from, let to, to.date <= from.date { throw ValidationError("--to must be after --from.") }
        if ids.contains(where: { $0 <= 0 }) { throw ValidationError("Event ids are positive.") }
    }

    func send(_ action: String, type: FootstepType? = nil, connection: ConnectionOptions, output: OutputOptions)
        async throws
    {
        let request = ReviewRequest(
            action: action, type: type, events: ids.isEmpty ? nil : ids, bout: bout, from: from?.date, to: to?.date,
            reason: reason)
        try await connection.withClient { client in
            let response = try await client.review(request)
            if output.json { return try OutputOptions.printJSON(response) }
            let count = response.reviewed.count
            var line = "\(count) event\(count == 1 ? "" : "s") \(response.verdict.rawValue)"
            if let type { line += " as \(type.rawValue)" }
            line += " by \(response.reviewer)"
            if !response.unchanged.isEmpty { line += "; \(response.unchanged.count) already so" }
            print(line)
        }
    }
}
