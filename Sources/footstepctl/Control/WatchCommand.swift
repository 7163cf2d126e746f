import ArgumentParser
import FootstepClient
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print events as the daemon detects them, one line each.",
            discussion: ControlExitCodes.discussion(
                "Runs until Ctrl-C (or --count events). With --json each event is one NDJSON line.\n\n"
                    + "Each event comes with its first label, within half a second of the impact. Gait context "
                    + "may settle a doubtful one differently a few seconds later (an 'other' on the beat of a "
                    + "walk becomes a footstep, a lone doubtful footstep 'other'), and a step's type may be "
                    + "named again when its walk ends: 'footstepctl events' and reports show the latest label "
                    + "and what it was revised from."))

        @Option(help: ArgumentHelp("Exit after this many events.", valueName: "N")) var count: Int?
        @Flag(help: "Only footsteps (leave out other impacts).") var footstepsOnly = false
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
        }

        func run() async throws {
            let terminal = Terminal.standardOutput
            try await connection.withClient { client in
                // The daemon's calibration decides whether the levels are absolute.
                let calibrated = (try? await client.configuration()).map { ($0["levels", "calibration_offset"]?.number ?? 0) != 0 } ?? false
                let unit = EventTable.levelUnit(calibrated: calibrated)
                var received = 0
                for try await line in client.liveLines(.liveEvents) {
                    let event = try ControlClient.decode(EventResponse.self, from: line)
                    if footstepsOnly && event.kind != .footstep { continue }
                    if output.json {
                        OutputOptions.printJSON(line)
                    } else {
                        Terminal.write(EventTable.line(event, terminal: terminal, unit: unit) + "\n")
                    }
                    received += 1
                    if let count, received >= count { return }
                }
                throw LiveOutput.streamEnded
            }
        }
    }
}
