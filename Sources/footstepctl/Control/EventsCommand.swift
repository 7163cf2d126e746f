import ArgumentParser
import FootstepClient
import FootstepCore
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, show, annotate or review detected events.",
            subcommands: [List.self, Show.self, Note.self, Confirm.self, Reject.self, Relabel.self],
            defaultSubcommand: List.self)

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List events, oldest first, filtered by time, session, type, kind and confidence.",
                discussion: ControlExitCodes.discussion(
                    """
                    Pages of the daemon's answer are followed until --limit events. With --json the \
                    output is one document {"items":[…],"next_cursor":…}; next_cursor is set when more \
                    events match than were printed.

                    Examples:
                      footstepctl events list --from yesterday --type stomping
                      footstepctl events list --from 2h --kind footstep --min-confidence 0.8
                      footstepctl events list --from "2025-01-31 22:00" --to "2025-02-01 07:00" --json
                      footstepctl events list --from yesterday --review unreviewed
                    """))

            @OptionGroup var filter: EventFilterOptions
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let (page, raw) = try await filter.fetch(client)
                    if output.json {
                        if let raw { return OutputOptions.printJSON(raw) }
                        return try OutputOptions.printJSON(page)
                    }
                    guard !page.items.isEmpty else { return print("no events match") }
                    EventTable.print(page.items, terminal: .standardOutput)
                    if page.nextCursor != nil {
                        fflush(nil)
                        FileHandle.standardError.write(Data("footstepctl: more events match; raise --limit to see them\n".utf8))
                    }
                }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show one event with all its measurements.", discussion: ControlExitCodes.discussion(""))
            @Argument(help: "The event id.") var id: Int64
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let data = try await client.data(.event(id))
                    if output.json { return OutputOptions.printJSON(data) }
                    EventTable.printDetail(try ControlClient.decode(EventResponse.self, from: data))
                }
            }
        }

        struct Note: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Set an event's notes (admin group).",
                discussion: ControlExitCodes.discussion(
                    "Notes are outside the evidence hash: changing them never breaks `footstepctl verify`."))
            @Argument(help: "The event id.") var id: Int64
            @Argument(help: "The notes (replaces the old ones; \"\" clears them).") var text: String
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let data = try await client.data(try .patchEvent(id, EventPatchRequest(notes: text)))
                    if output.json { return OutputOptions.printJSON(data) }
                    EventTable.printDetail(try ControlClient.decode(EventResponse.self, from: data))
                }
            }
        }
    }
}

/// The filters of `events list`.
struct EventFilterOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Events at or after this time (\(TimeArgument.help)).", valueName: "TIME"))
    var from: TimeArgument?
    @Option(parsing: .unconditional, help: ArgumentHelp("Events before this time.", valueName: "TIME"))
    var to: TimeArgument?
    @Option(help: "Only this session.") var session: Int64?
    @Option(help: "Only this footstep type: \(FootstepType.allCases.map(\.rawValue).joined(separator: ", ")).")
    var type: FootstepType?
    @Option(help: "Only this kind: footstep or other.") var kind: EventKind?
    @Option(help: ArgumentHelp("Only events classified with at least this confidence (0…1).", valueName: "P"))
    var minConfidence: Double?
    @Option(help: "Only events a person has reviewed so, or not: unreviewed, confirmed, rejected.")
    var review: ReviewState?
    @Option(help: "At most this many events (pages are followed up to it).") var limit = 100
    @Option(help: .hidden) var pageSize = 1000

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        guard pageSize > 0 else { throw ValidationError("--page-size must be at least 1.") }
        if let minConfidence, !(0...1).contains(minConfidence) {
            throw ValidationError("--min-confidence must be between 0 and 1.")
        }
        if let from, let to, to.date <= from.date { throw ValidationError("--to must be after --from.") }
    }

    var query: ControlRequest.EventQuery {
        ControlRequest.EventQuery(
            from: from?.date, to: to?.date, session: session, type: type, kind: kind, minConfidence: minConfidence,
            review: review)
    }

    /// Up to `limit` events; `raw` is the server's own document when one page held them all.
    func fetch(_ client: ControlClient) async throws(ControlClientError) -> (PageResponse<EventResponse>, Data?) {
        var query = query
        query.limit = min(limit, pageSize)
        let first = try await client.data(.events(query))
        let page = try ControlClient.decode(PageResponse<EventResponse>.self, from: first)
        guard let cursor = page.nextCursor, page.items.count < limit, !page.items.isEmpty else {
            guard page.items.count > limit else { return (page, first) }
            return (PageResponse(items: Array(page.items.prefix(limit)), nextCursor: page.nextCursor), nil)
        }
        query.cursor = cursor
        let rest = try await client.allEvents(query, limit: limit - page.items.count, pageSize: pageSize)
        return (PageResponse(items: page.items + rest.items, nextCursor: rest.nextCursor), nil)
    }
}

extension FootstepType: ExpressibleByArgument {}
extension EventKind: ExpressibleByArgument {}
extension ReviewState: ExpressibleByArgument {}
