import ArgumentParser
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepDSP
import Foundation
import Synchronization

/// Builds the classifier's training or validation set: renders synthetic
/// scenarios, runs the real pipeline (detector) with a feature-recording
/// classifier and labels each detection from the ground truth.
struct FootstepDataset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "footstep-dataset",
        abstract: "Write the classifier's feature dataset (CSV) from synthetic scenarios.",
        discussion: """
            Each detection is labelled by the nearest ground-truth impact within ±50 ms: a \
            footstep type, or `other` for a distractor (door, knock, drop, music bass, chair) \
            and for a detection that matches nothing (noise blips, music and babble onsets). \
            Training and validation use disjoint seed ranges.
            """)

    enum Split: String, ExpressibleByArgument, CaseIterable {
        case train, validation
    }

    @Option(help: "Which seed range: train or validation (disjoint).")
    var split: Split = .train

    @Option(help: "Number of scenarios to render.")
    var scenarios = 120

    @Option(help: "Seconds per scenario.")
    var duration = 60.0

    @Option(name: .shortAndLong, help: "Output CSV path ('-' for stdout).")
    var output = "-"

    @Option(help: ArgumentHelp(
        "Also write each row's event picture here: \(EventPicture.count) little-endian float32 values a row, in the CSV's row order.",
        valueName: "file"))
    var pictures: String?

    @Option(help: "Parallel scenarios.")
    var jobs = 1

    @Option(help: "Directory of labelled recordings (NAME.wav with NAME.csv: onset_s,offset_s,label), e.g. the evaluation's training clips (tools/eval/footstep_eval.py build); added to the split.")
    var labelled: String?

    @Option(help: "Instead of a dataset, time the model classifier on this many seconds of the mixed scenario.")
    var benchmark: Double?

    @Option(help: ArgumentHelp(
        "Instead of a dataset, write the frame step network's input for each recording in --labelled here: NAME.f32, \(FramePicture.bandCount) little-endian float32 values a 10 ms frame.",
        valueName: "directory"))
    var framePictures: String?

    func validate() throws {
        guard scenarios > 0 else { throw ValidationError("--scenarios must be positive.") }
        guard duration >= 5 else { throw ValidationError("--duration must be at least 5 s.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        if framePictures != nil, labelled == nil {
            throw ValidationError("--frame-pictures needs --labelled: the directory of recordings to picture.")
        }
    }

    func run() throws {
        if let benchmark { return try ClassifierBenchmark.run(seconds: benchmark) }
        if let framePictures, let labelled {
            let started = Date()
            let count = try FramePictures.write(recordingsIn: labelled, to: framePictures)
            FileHandle.standardError.write(
                Data(String(format: "footstep-dataset: %d frame pictures in %@ (%.0f s)\n", count, framePictures,
                            Date().timeIntervalSince(started)).utf8))
            return
        }
        let plans = DatasetPlan.scenarios(split: split == .train ? .train : .validation, count: scenarios, duration: duration)
        let results = Mutex<[Int: [DatasetRow]]>([:])
        let failure = Mutex<String?>(nil)
        let started = Date()
        DispatchQueue.concurrentPerform(iterations: jobs) { worker in
            var index = worker
            while index < plans.count {
                do {
                    let rows = try DatasetPlan.rows(for: plans[index])
                    results.withLock { $0[index] = rows }
                } catch {
                    failure.withLock { $0 = "\(plans[index].displayName): \(error)" }
                }
                index += jobs
            }
        }
        if let message = failure.withLock({ $0 }) { throw ValidationError("scenario failed: \(message)") }
        var labelledRows: [DatasetRow] = []
        if let labelled {
            for file in try LabelledRecordings.files(in: labelled) {
                labelledRows += try LabelledRecordings.rows(file: file, split: split == .train ? .train : .validation)
            }
        }
        var text = DatasetRow.header + "\n"
        var pictureBytes: [Float] = []
        var counts: [String: Int] = [:]
        let all = results.withLock { $0 }
        for (row, counted) in (0..<plans.count).flatMap({ all[$0] ?? [] }).map({ ($0, $0.label) })
            + labelledRows.map({ ($0, $0.label + " (labelled)") })
        {
            text += row.csvLine + "\n"
            if pictures != nil { pictureBytes += row.picture }
            counts[counted, default: 0] += 1
        }
        if let pictures {
            try pictureBytes.map(\.bitPattern.littleEndian).withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: pictures))
        }
        if output == "-" {
            print(text, terminator: "")
        } else {
            try text.write(toFile: output, atomically: true, encoding: .utf8)
        }
        let summary = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        FileHandle.standardError.write(
            Data(String(format: "footstep-dataset: %@ %d scenarios, %@ (%.0f s)\n", split.rawValue, plans.count, summary,
                        Date().timeIntervalSince(started)).utf8))
    }
}

FootstepDataset.main()
