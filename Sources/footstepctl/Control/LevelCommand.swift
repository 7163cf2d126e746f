import ArgumentParser
import FootstepClient
import FootstepCore
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Level: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A live sound level meter: bar, dB(A) and band, about 8 readings a second.",
            discussion: ControlExitCodes.discussion(
                """
                Bands as on the original meter: silent (< 50 dB, blue), quiet (< 75, green), average \
                (< 90, purple), noisy (< 100, orange), loud (red). Levels are dB SPL only after \
                `footstepctl calibrate`; before, they are relative to full scale and marked \
                "uncalibrated". On a terminal the meter redraws one line; otherwise each reading \
                is a line. Ctrl-C ends it.

                Scripts: `footstepctl level --once --json` prints one reading and exits.
                """))

        @Flag(help: "Print one reading and exit.") var once = false
        @Option(help: ArgumentHelp("Exit after this many readings.", valueName: "N")) var count: Int?
        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if let count, count < 1 { throw ValidationError("--count must be at least 1.") }
        }

        func run() async throws {
            let limit = once ? 1 : count
            let terminal = Terminal.standardOutput
            let redraw = terminal.isTTY && !output.json && limit != 1
            if redraw { LiveOutput.endLineOnInterrupt() }
            try await connection.withClient { client in
                var received = 0
                for try await line in client.liveLines(.liveLevels) {
                    if output.json {
                        OutputOptions.printJSON(line)
                    } else {
                        let reading = try ControlClient.decode(LiveLevelReading.self, from: line)
                        let text = LevelMeterLine(terminal: terminal).render(reading)
                        Terminal.write(redraw ? "\r\u{1B}[2K" + text : text + "\n")
                    }
                    received += 1
                    if let limit, received >= limit { break }
                }
                if redraw { Terminal.write("\n") }
                if limit.map({ received < $0 }) ?? true { throw LiveOutput.streamEnded }
            }
        }
    }
}

/// One line of the meter: `▕████████░░░░▏  62.3 dB(A)  quiet`.
struct LevelMeterLine {
    let terminal: Terminal

    /// The bar spans 20…110 dB(A) when calibrated, −90…0 dBFS-relative when not.
    static func fraction(_ reading: LiveLevelReading) -> Double {
        let (low, high) = reading.calibrated ? (20.0, 110.0) : (-90.0, 0.0)
        guard reading.lafDB.isFinite else { return 0 }
        return min(max((reading.lafDB - low) / (high - low), 0), 1)
    }

    func render(_ reading: LiveLevelReading) -> String {
        let unit = reading.calibrated ? "dB(A)" : "dB(A) uncalibrated"
        let number = HumanFormat.decibels(reading.lafDB)
        let label = String(repeating: " ", count: max(0, 6 - number.count)) + number + " " + unit
        // Bands name absolute levels: an uncalibrated reading has none.
        let band = reading.calibrated ? reading.band.rawValue : ""
        let barWidth = max(10, min(60, terminal.width - label.count - band.count - 8))
        let filled = Int((Self.fraction(reading) * Double(barWidth)).rounded())
        let colour = reading.calibrated ? Terminal.colour(of: reading.band) : .grey
        let bar = terminal.paint(String(repeating: "█", count: filled), colour)
            + String(repeating: terminal.colour ? "░" : ".", count: barWidth - filled)
        return "▕" + bar + "▏ " + label + (band.isEmpty ? "" : "  " + terminal.paint(band, colour))
    }
}

/// What live commands share: the end-of-stream failure and Ctrl-C handling.
enum LiveOutput {
    static let streamEnded = CommandFailure("footstepd ended the live stream (is it shutting down?)", exitCode: 69)

    nonisolated(unsafe) private static var interruptSource: (any DispatchSourceSignal)?

    /// On Ctrl-C, moves to a new line before exiting, so the redrawn line is kept.
    static func endLineOnInterrupt() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            Terminal.write("\n")
            exit(130)
        }
        source.resume()
        interruptSource = source
    }
}
