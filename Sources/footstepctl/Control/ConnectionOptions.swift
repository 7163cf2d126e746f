import ArgumentParser
import FootstepClient
import Foundation

/// `--socket` and `--timeout`, shared by every command that talks to footstepd.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's control socket (default: $FOOTSTEPD_SOCKET, else \(ControlClient.defaultSocketPath)).",
            valueName: "PATH"),
        completion: .file())
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for an answer.", valueName: "SECONDS"))
    var timeout: Double = 10

    func validate() throws {
        guard timeout > 0 && timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds.") }
        if let socket, socket.isEmpty { throw ValidationError("--socket needs a path.") }
    }

    /// `--socket`, else `$FOOTSTEPD_SOCKET`, else the default path.
    var socketPath: String {
        if let socket { return socket }
        if let fromEnvironment = ProcessInfo.processInfo.environment["FOOTSTEPD_SOCKET"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return ControlClient.defaultSocketPath
    }

    var client: ControlClient { ControlClient(socketPath: socketPath, timeout: timeout) }

    /// Runs `body` with a client; a ``ControlClientError`` or ``CommandFailure``
    /// becomes one line on stderr and its exit code (see ``ControlExitCodes``).
    func withClient(_ body: (ControlClient) async throws -> Void) async throws {
        do {
            try await body(client)
        } catch let error as ControlClientError {
            throw CommandFailure.report(CommandFailure(error.description, exitCode: error.exitCode))
        } catch let failure as CommandFailure {
            throw CommandFailure.report(failure)
        }
    }
}

/// A failure reported as `footstepctl: <message>` with a chosen exit code.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}

/// The exit codes of the commands that talk to footstepd (sysexits.h values),
/// shown at the end of their --help.
enum ControlExitCodes {
    static let help = """
        Exit codes: 0 success; 1 other failure; 64 bad usage; 65 request rejected (invalid \
        value); 66 not found (no such session, event or clip); 69 footstepd not running or \
        unreachable; 70 footstepd reported an internal error; 73 cannot write the output file; 75 \
        timed out; 76 malformed \
        response; 77 permission denied (socket access, or an admin-only action).
        """

    /// `discussion` followed by a blank line and the exit codes.
    static func discussion(_ text: String) -> String {
        text.isEmpty ? help : text + "\n\n" + help
    }
}

extension CommandFailure {
    /// Prints the failure and exits with its code; called by every control command.
    static func report(_ failure: CommandFailure) -> ExitCode {
        FileHandle.standardError.write(Data("footstepctl: \(failure.message)\n".utf8))
        return ExitCode(failure.exitCode)
    }
}
