import ArgumentParser
import FootstepClient
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, show, rename, annotate or delete recording sessions.",
            subcommands: [List.self, Show.self, Rename.self, Note.self, Delete.self],
            defaultSubcommand: List.self)

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "List sessions, oldest first, with duration, events and audio size.",
                discussion: ControlExitCodes.discussion(""))
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let data = try await client.data(.sessions)
                    if output.json { return OutputOptions.printJSON(data) }
                    let sessions = try ControlClient.decode(SessionListResponse.self, from: data).items
                    guard !sessions.isEmpty else { return print("no sessions yet") }
                    let terminal = Terminal.standardOutput
                    var table = TextTable([
                        .init(header: "ID", right: true), .init(header: "STARTED"), .init(header: "DURATION", right: true),
                        .init(header: "STATUS"), .init(header: "EVENTS", right: true),
                        .init(header: "FOOTSTEPS", right: true), .init(header: "AUDIO", right: true),
                        .init(header: "TITLE", flexible: true),
                    ])
                    for session in sessions {
                        table.append([
                            String(session.id), HumanFormat.time(session.startedAt),
                            HumanFormat.duration(session.durationSeconds), session.status, String(session.eventCount),
                            String(session.footstepCount), HumanFormat.bytes(session.audioBytes), session.title,
                        ])
                    }
                    table.render(width: terminal.width).forEach { print($0) }
                }
            }
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show one session.", discussion: ControlExitCodes.discussion(""))
            @Argument(help: "The session id (see `footstepctl sessions list`).") var id: Int64
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let data = try await client.data(.session(id))
                    if output.json { return OutputOptions.printJSON(data) }
                    SessionPrinter.print(try ControlClient.decode(SessionResponse.self, from: data))
                }
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Give a session a title (admin group).", discussion: ControlExitCodes.discussion(""))
            @Argument(help: "The session id.") var id: Int64
            @Argument(help: "The new title (quote it if it has spaces).") var title: String
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await SessionPrinter.patch(id, SessionPatchRequest(title: title), connection, output)
            }
        }

        struct Note: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Set a session's notes (admin group).",
                discussion: ControlExitCodes.discussion(
                    "Notes are not part of the evidence hash; they can be changed at any time."))
            @Argument(help: "The session id.") var id: Int64
            @Argument(help: "The notes (replaces the old ones; \"\" clears them).") var text: String
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await SessionPrinter.patch(id, SessionPatchRequest(notes: text), connection, output)
            }
        }

        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Delete a session with its events, levels and audio (admin group).",
                discussion: ControlExitCodes.discussion(
                    "The deletion is recorded in the event hash chain, so `footstepctl verify` reports it. "
                        + "Asks for confirmation on a terminal; pass --yes in scripts."))
            @Argument(help: "The session id.") var id: Int64
            @Flag(name: .shortAndLong, help: "Do not ask for confirmation.") var yes = false
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    if !yes {
                        let session = try await client.session(id)
                        guard isatty(STDIN_FILENO) == 1 else {
                            throw CommandFailure("refusing to delete session \(id) without --yes (stdin is not a terminal)", exitCode: 64)
                        }
                        Terminal.write(
                            "Delete session \(id) (\(session.eventCount) events, \(HumanFormat.bytes(session.audioBytes)) of audio)? [y/N] ")
                        guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                            throw CommandFailure("not deleted", exitCode: 1)
                        }
                    }
                    let data = try await client.data(.deleteSession(id))
                    if output.json { return OutputOptions.printJSON(data) }
                    let deletion = try ControlClient.decode(SessionDeletionResponse.self, from: data)
                    print("deleted session \(deletion.sessionId): \(deletion.eventsDeleted) events, \(deletion.filesDeleted) files")
                }
            }
        }
    }
}

/// Shows one session as `label  value` lines.
enum SessionPrinter {
    static func print(_ session: SessionResponse) {
        var rows: [(String, String)] = [
            ("id", String(session.id)), ("title", session.title), ("status", session.status),
            ("started", HumanFormat.time(session.startedAt)),
        ]
        if let ended = session.endedAt {
            rows.append(("ended", HumanFormat.time(ended) + (session.endReason.map { ": \($0)" } ?? "")))
        }
        rows += [
            ("duration", HumanFormat.duration(session.durationSeconds)),
            ("device", "\(session.device) (\(session.sampleRate) Hz, \(session.channels) ch, \(session.timeZone))"),
            ("events", "\(session.eventCount) (\(session.footstepCount) footsteps)"),
            ("audio", "\(session.audioFileCount) files, \(HumanFormat.bytes(session.audioBytes))"),
        ]
        if session.gapCount > 0 {
            rows.append(("gaps", "\(session.gapCount) (\(HumanFormat.duration(session.gapSeconds)) not recorded)"))
        }
        if !session.notes.isEmpty { rows.append(("notes", session.notes)) }
        HumanFormat.labelled(rows).forEach { Swift.print($0) }
    }

    /// PATCHes a session and shows the result.
    static func patch(_ id: Int64, _ patch: SessionPatchRequest, _ connection: ConnectionOptions, _ output: OutputOptions)
        async throws
    {
        try await connection.withClient { client in
            let data = try await client.data(try .patchSession(id, patch))
            if output.json { return OutputOptions.printJSON(data) }
            print(try ControlClient.decode(SessionResponse.self, from: data))
        }
    }
}
