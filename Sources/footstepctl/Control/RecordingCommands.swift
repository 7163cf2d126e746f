import ArgumentParser
import FootstepClient
import FootstepWire
import Foundation

/// `start`, `stop`, `pause`, `resume`: one POST each, the same output.
struct RecordingActionRunner {
    let action: RecordingAction
    let connection: ConnectionOptions
    let output: OutputOptions

    func run() async throws {
        try await connection.withClient { client in
            let data = try await client.data(.recording(action))
            if output.json { return OutputOptions.printJSON(data) }
            let answer = try ControlClient.decode(ActionResponse.self, from: data)
            print(answer.message)
        }
    }

    static let discussion = ControlExitCodes.discussion(
        "Needs the admin group (socket.admin_group, default footstepd-admin) or root.")
}

extension FootstepCtl {
    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start recording: open a new session (does nothing if one is open).",
            discussion: RecordingActionRunner.discussion)
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await RecordingActionRunner(action: .start, connection: connection, output: output).run()
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop recording: close the session as completed (the daemon keeps running).",
            discussion: RecordingActionRunner.discussion)
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await RecordingActionRunner(action: .stop, connection: connection, output: output).run()
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pause recording: the session stays open, nothing is recorded until resume.",
            discussion: RecordingActionRunner.discussion)
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await RecordingActionRunner(action: .pause, connection: connection, output: output).run()
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resume a paused session (a new audio file is started).",
            discussion: RecordingActionRunner.discussion)
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await RecordingActionRunner(action: .resume, connection: connection, output: output).run()
        }
    }
}
