import ArgumentParser
import Foundation
import Hummingbird
import Logging

extension FootstepCtl {
    struct UI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ui",
            abstract: "Review the night in a browser: a dashboard on 127.0.0.1 with a one-time token.",
            discussion: ControlExitCodes.discussion(
                """
                Serves the dashboard on 127.0.0.1 only and prints its URL with a one-time token, \
                as Jupyter does: open it in a browser on this machine. Pages: Now (the live \
                level, state, device, problems), Night (the timeline of levels and events, each \
                event's clip to play, confirm / reject / relabel for an event, its bout or a \
                range, with keys), Reports (make one for a period and download it).

                The dashboard talks to footstepd's socket as the user who ran footstepctl ui: \
                the socket's groups stay the only access control. A reader can look; reviewing \
                needs the admin group. A request without the token, from another Host or from \
                another page's Origin is refused.

                From another machine (an officer's laptop), forward the port over SSH:
                  ssh -L 8765:127.0.0.1:8765 resident@flat   (then footstepctl ui --port 8765 there)
                and open the printed URL on the laptop.

                Examples:
                  footstepctl ui
                  footstepctl ui --port 8765
                """))

        @Option(help: "The port on 127.0.0.1 (default: a free one).") var port = 0
        @Option(help: "Reports: the daemon's database file (default STATE_DIR/footstepd.db).", completion: .file())
        var database: String?
        @Option(help: "Reports: the daemon's state directory.", completion: .directory) var stateDir: String?
        @OptionGroup(title: "Connection") var connection: ConnectionOptions

        func validate() throws {
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 (a free one) to 65535.") }
        }

        func run() async throws {
            var logger = Logger(label: "footstepctl-ui")
            logger.logLevel = .warning
            let token = DashboardGuard<BasicRequestContext>.makeToken()
            var store: [String] = []
            if let database { store += ["--database", database] }
            if let stateDir { store += ["--state-dir", stateDir] }
            let server = DashboardServer(client: connection.client, token: token, storeArguments: store, logger: logger)
            let application = server.application(port: port) { bound in
                print("footstepctl ui: open http://127.0.0.1:\(bound)/?token=\(token)")
                print("(Ctrl-C stops it; the token is valid until then)")
                fflush(nil)
            }
            do {
                try await application.runService()
            } catch {
                throw CommandFailure("cannot serve the dashboard on 127.0.0.1:\(port): \(error)", exitCode: 69)
            }
        }
    }
}
