import ArgumentParser
import FootstepClient
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print events as the daemon detects them, one line each.",
            discussion: ControlExitCodes.discussion(
                "Runs until Ctrl-C (or --count new events). With --json each line of the daemon's feed is "
                    + "printed as it comes, one NDJSON object.\n\n"
                    + "Each event comes with its first label, within half a second of the impact. Gait context "
                    + "may settle a doubtful one differently a few seconds later (an 'other' on the beat of a "
                    + "walk becomes a footstep, a lone doubtful footstep 'other'), and a step's type may be "
                    + "named again when its walk ends. The event then comes again with its new label, marked "
                    + "'revised' (in JSON: the same id, no higher than one already seen, with revised_from "
                    + "naming the label it was stored with when that differs). 'footstepctl events' and "
                    + "reports show the latest label and what it was revised from."))

        @Option(help: ArgumentHelp("Exit after this many new events (revisions are not counted).", valueName: "N"))
        var count: Int?
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
                var labels = LiveLabels()
                for try await line in client.liveLines(.liveEvents) {
                    let event = try ControlClient.decode(EventResponse.self, from: line)
                    let previous = labels.receive(event)
                    let isNew = previous == nil
                    // A revision matters to --footsteps-only when it makes or unmakes a footstep.
                    if footstepsOnly && event.kind != .footstep && (isNew || previous?.kind != .footstep) { continue }
                    if output.json {
                        OutputOptions.printJSON(line)
                    } else if let previous {
                        Terminal.write(
                            EventTable.revisionLine(event, was: previous.text, terminal: terminal) + "\n")
                    } else {
                        Terminal.write(EventTable.line(event, terminal: terminal, unit: unit) + "\n")
                    }
                    guard isNew else { continue }
                    received += 1
                    if let count, received >= count { return }
                }
                throw LiveOutput.streamEnded
            }
        }
    }
}
