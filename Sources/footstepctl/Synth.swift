import FootstepCore
import ArgumentParser
import FootstepAudio
import Foundation

extension FootstepCtl {
    struct Synth: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a synthetic footstep scenario to an audio file, with its ground truth.",
            discussion: """
                The built-in synthesizer is deterministic: the same scenario, seed and options \
                give the same samples. Scenarios: \(SynthesisScenario.Name.allCases.map(\.rawValue).joined(separator: ", ")).

                --set takes the synthesizer's key=value options, e.g. \
                --set backgrounds=pink+hum50@-10 --set floor=concrete.

                Examples:
                  footstepctl synth --scenario walking --duration 60 -o walk.wav --truth walk.csv
                  footstepctl synth --scenario night --duration 8h --seed 7 -o night.flac
                """)

        @Option(help: "Scenario name.")
        var scenario: String = "mixed"

        @Option(help: "Random seed (same seed, same audio).")
        var seed: UInt64 = 1

        @Option(help: "Length: seconds, or with a unit (90s, 10m, 8h).")
        var duration: String = "60s"

        @Option(help: "Sample rate in Hz (8000-96000).")
        var rate: Int?

        @Option(help: "Channels (1 or 2).")
        var channels: Int?

        @Option(help: "Centre signal-to-noise ratio of the events in dB.")
        var snr: Double?

        @Option(help: "Sound through a ceiling (on) or in the same room (off).")
        var ceiling: Toggle?

        @Option(name: .customLong("set"), help: "Extra synthesizer option key=value (repeatable).")
        var settings: [String] = []

        @Option(name: .shortAndLong, help: "Audio file to write (.flac or .wav).", completion: .file())
        var output: String

        @Option(help: "Ground-truth CSV to write (onset_s,duration_s,kind,label,level_dbfs,snr_db,bout).", completion: .file())
        var truth: String?

        enum Toggle: String, ExpressibleByArgument {
            case on, off
        }

        func validate() throws {
            _ = try DurationParser.seconds(duration)
            guard AudioFileContainer(pathExtension: output) != nil else {
                throw ValidationError("--output must end in .flac or .wav, not '\(output)'.")
            }
        }

        func run() throws {
            var spec = scenario
            let extra = settings.joined(separator: ",")
            if !extra.isEmpty { spec += ":" + extra }
            var scenario = try SynthesisScenario(parsing: spec)
            scenario.seed = seed
            scenario.duration = try DurationParser.seconds(duration)
            if let rate { scenario.sampleRate = rate }
            if let channels { scenario.channels = channels }
            if let snr { scenario.snrDB = snr }
            if let ceiling { scenario.ceiling = ceiling == .on }
            try scenario.validate()

            let source = try SyntheticSource(scenario: scenario)
            let container = AudioFileContainer(pathExtension: output)!
            let writer = try AudioFileWriter(path: output, format: source.format, container: container)
            let reporter = ProgressReporter(label: output)
            var buffer = [Float](repeating: 0, count: 8192 * source.format.channels)
            while true {
                let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0) }
                if frames == 0 { break }
                try buffer.withUnsafeBufferPointer { try writer.write(UnsafeBufferPointer(rebasing: $0[0..<(frames * source.format.channels)])) }
                reporter.update(frames: writer.framesWritten, total: source.frameCount, sampleRate: source.format.sampleRate)
            }
            try writer.close()
            reporter.finish()
            if let truth {
                try GroundTruthCSV.write(source.groundTruth).write(toFile: truth, atomically: true, encoding: .utf8)
            }
            let footsteps = source.groundTruth.filter { $0.kind == .footstep }.count
            print(
                "wrote \(output): \(scenario.displayName), \(String(format: "%.1f", scenario.duration)) s, \(source.format), "
                    + "\(footsteps) footsteps, \(source.groundTruth.count - footsteps) other events"
                    + (truth.map { "; ground truth in \($0)" } ?? ""))
        }
    }
}

/// Parses durations such as `90`, `90s`, `10m`, `8h`, `1.5h`.
enum DurationParser {
    static func seconds(_ text: String) throws -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = text.dropLast()
            scale = unit
        }
        guard let value = Double(number), value > 0, value.isFinite else {
            throw ValidationError("'\(text)' is not a duration: use seconds or a number with s, m, h or d (90s, 10m, 8h).")
        }
        return value * scale
    }
}
