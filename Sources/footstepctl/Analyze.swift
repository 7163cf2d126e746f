import ArgumentParser
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Foundation

extension FootstepCtl {
    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Detect and classify impacts in audio files, as fast as the CPU allows.",
            discussion: """
                Runs the same pipeline as the daemon (levels in dB(A), onset detection, \
                classification) over each FILE (WAV, FLAC, OGG, AIFF… any rate, mixed down to \
                mono) and prints one row per event, then a summary. A file that cannot be read \
                is reported and the others are still analysed; the exit status is 1 if any \
                file failed.

                With --output DIR, also writes DIR/<name>.csv per input with the columns \
                onset_s,label,confidence,duration_s,la_max,lc_max,peak_dbfs (label is the \
                footstep type, or "other" for a non-footstep impact).

                With --bouts, also lists the gait bouts: consecutive footsteps less than 1.5 s \
                apart, with start, end, steps, cadence (steps/s), dominant type and walking/running.
                """)

        @Argument(help: "Audio files to analyse.", completion: .file())
        var files: [String]

        @Option(help: "Output format on stdout: table, csv or jsonl.")
        var format: OutputFormat = .table

        @Option(name: .shortAndLong, help: "Also write one CSV of events per input file into this directory.", completion: .directory)
        var output: String?

        @Option(help: "Calibration offset in dB added to dBFS levels (0 = uncalibrated, relative levels).")
        var calibration: Double = 0

        @Option(help: "Detector sensitivity: lower finds fainter impacts, higher only clear ones.")
        var threshold: Double = 1

        @Flag(name: .shortAndLong, help: "Print only the summary, not one row per event.")
        var quiet = false

        @Flag(help: "Also list the gait bouts (walking/running episodes: footsteps less than 1.5 s apart).")
        var bouts = false

        @Option(help: "Classifier model file (default: the model shipped with footstepctl).", completion: .file())
        var model: String?

        @Flag(
            inversion: .prefixedNo,
            help: ArgumentHelp(
                "Revise labels with the neighbouring impacts in view.",
                discussion: """
                    An unsure impact on the beat of the footsteps around it counts as an (unknown) footstep; \
                    a footstep of unknown type with fewer than two other footsteps within 1.5 s, \
                    or one that rings on for 0.6 s or more like a slammed door with none, counts as other. \
                    --no-gait-context shows the classifier's labels alone.
                    """))
        var gaitContext = true

        @Flag(
            inversion: .prefixedNo,
            help: ArgumentHelp(
                "With gait context, count a regular walk of alike impacts as footsteps.",
                discussion: """
                    Four or more impacts at a walking or running pace, each as loud and sounding \
                    like the one before, not machine-exact, and on average leaning towards footsteps, \
                    are footsteps whatever the classifier says of each one. --no-walks shows what \
                    the rule adds.
                    """))
        var walks = true

        @Flag(
            inversion: .prefixedNo,
            help: ArgumentHelp(
                "With gait context, judge doubtful impacts by the recording's sure footsteps.",
                discussion: """
                    An impact the classifier doubts (footstep probability 0.3 or more) that sounds \
                    like, and is as loud as, three of the footsteps it was sure of (0.8 or more) in the \
                    minute around it is a footstep; a footstep it doubts (below 0.95), not in a train \
                    or a walk, needs two such sure footsteps around it. --no-memory shows what the two \
                    rules change.
                    """))
        var memory = true

        @Flag(
            inversion: .prefixedNo,
            help: ArgumentHelp(
                "Let the model's frame step network revise the labels.",
                discussion: """
                    A network that hears the whole stream in 10 ms frames says where steps begin, \
                    and the model's trees weigh that with the labels and the footsteps, detections \
                    and network onsets within 2 s: a detection called `other` can become a \
                    footstep, a footstep `other`, and a step the network hears where nothing was \
                    detected is added. The bundled model has both; --no-frame-network shows what \
                    they change.
                    """))
        var frameNetwork = true

        enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
            case table, csv, jsonl
        }

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("Name at least one audio file to analyse.") }
            guard threshold > 0 && threshold < 100 else { throw ValidationError("--threshold must be between 0 and 100.") }
            if let output {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), !isDirectory.boolValue {
                    throw ValidationError("--output '\(output)' exists and is not a directory.")
                }
            }
        }

        func run() throws {
            if let output {
                do {
                    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
                } catch {
                    throw ValidationError("cannot create the output directory '\(output)': \(error.localizedDescription)")
                }
            }
            var configuration = AnalysisConfiguration()
            configuration.calibrationOffsetDB = calibration
            configuration.detectorThreshold = threshold
            configuration.gaitContext = gaitContext
            configuration.walks = walks
            configuration.memory = memory
            configuration.frameNetwork = frameNetwork
            var classifierModel: FootstepModel?
            if let model {
                do {
                    classifierModel = try FootstepModel.load(contentsOf: URL(fileURLWithPath: model))
                } catch {
                    throw ValidationError("\(error)")
                }
            }
            let printer = EventPrinter(format: format, quiet: quiet, multipleFiles: files.count > 1, bouts: bouts)
            var failures = 0
            for file in files {
                do {
                    let reporter = ProgressReporter(label: file)
                    let result = try FileAnalysis.analyse(path: file, configuration: configuration, model: classifierModel) { frames, total in
                        reporter.update(frames: frames, total: total, sampleRate: nil)
                    }
                    reporter.finish()
                    printer.print(result)
                    if let output { try result.writeLabelCSV(into: output) }
                    if result.invalidSamples > 0 {
                        FileHandle.standardError.write(Data(
                            "footstepctl: \(file): \(result.invalidSamples) samples were not numbers or beyond ±\(Int(SampleSanity.limit)) (60 dB over full scale) and were analysed as silence\n".utf8))
                    }
                    if let error = result.sourceError {
                        failures += 1
                        FileHandle.standardError.write(Data("footstepctl: \(error)\n".utf8))
                    }
                } catch {
                    failures += 1
                    FileHandle.standardError.write(Data("footstepctl: \(error)\n".utf8))
                }
            }
            if failures > 0 {
                if files.count > 1 {
                    FileHandle.standardError.write(Data("footstepctl: \(failures) of \(files.count) files failed\n".utf8))
                }
                throw ExitCode(1)
            }
        }
    }
}
