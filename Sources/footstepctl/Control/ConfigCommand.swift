import ArgumentParser
import FootstepClient
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration file, show the daemon's effective configuration, or reload it.",
            subcommands: [Check.self, Show.self, Reload.self])

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Show the configuration the daemon is running with (no secrets).",
                discussion: ControlExitCodes.discussion(""))
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let data = try await client.data(.configuration)
                    if output.json { return OutputOptions.printJSON(data) }
                    let configuration = try ControlClient.decode(ConfigurationResponse.self, from: data)
                    print("# effective configuration of footstepd (\(configuration.path ?? "built-in defaults"))")
                    print(configuration.toml, terminator: configuration.toml.hasSuffix("\n") ? "" : "\n")
                }
            }
        }

        struct Reload: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make the daemon re-read its configuration file (like SIGHUP; admin group).",
                discussion: ControlExitCodes.discussion(
                    "An invalid file is refused with the key and reason, and the running configuration is kept."))
            @OptionGroup(title: "Connection") var connection: ConnectionOptions
            @OptionGroup var output: OutputOptions

            func run() async throws {
                try await connection.withClient { client in
                    let data = try await client.data(.reloadConfiguration)
                    if output.json { return OutputOptions.printJSON(data) }
                    print(try ControlClient.decode(ActionResponse.self, from: data).message)
                }
            }
        }
    }
}
