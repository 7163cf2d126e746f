import ArgumentParser
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Foundation

/// Clips built from real recordings (the evaluation's training clips,
/// `tools/eval/footstep_eval.py build`): each `NAME.wav` in a directory with
/// its `NAME.csv` ground truth `onset_s,offset_s,label`, the label a footstep
/// type (`heel_strike`, `running`, `stomping`, `shuffling`) or
/// `other:<category>`.
///
/// Matching is the synthetic scenarios' (nearest truth within ±50 ms,
/// unmatched detections within 150 ms of a step are `near_footstep`).
enum LabelledRecordings {
    struct TruthEvent {
        var onset: Double
        var isFootstep: Bool
        var label: String

        /// The class a detection of this event trains.
        var trainingLabel: String { isFootstep ? label : EventKind.other.rawValue }
    }

    /// The `.wav` files of `directory` that have a truth CSV beside them, sorted by name.
    static func files(in directory: String) throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".wav") }.sorted()
        return names.map { (directory as NSString).appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: truthPath(of: $0)) }
    }

    static func truthPath(of audio: String) -> String {
        (audio as NSString).deletingPathExtension + ".csv"
    }

    static func truth(of audio: String) throws -> [TruthEvent] {
        let path = truthPath(of: audio)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline)
        guard let header = lines.first?.split(separator: ",").map(String.init),
            let onset = header.firstIndex(of: "onset_s"), let label = header.firstIndex(of: "label")
        else { throw ValidationError("'\(path)' lacks the onset_s,offset_s,label header") }
        let types = Set(FootstepType.classified.map(\.rawValue))
        return try lines.dropFirst().enumerated().map { number, line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > max(onset, label), let time = Double(fields[onset]),
                types.contains(fields[label]) || fields[label].hasPrefix("other")
            else {
                throw ValidationError("'\(path)' line \(number + 2): expected onset_s,offset_s,label with a footstep type or other:<kind>")
            }
            let isFootstep = !fields[label].hasPrefix("other")
            return TruthEvent(onset: time, isFootstep: isFootstep, label: fields[label])
        }
    }

    /// Runs `audio` through the pipeline and labels its detections from its truth.
    static func rows(file audio: String, split: DatasetPlan.Split, tolerance: Double = 0.05) throws -> [DatasetRow] {
        let truth = try truth(of: audio)
        let source = try AudioFileSource(path: audio).atAnalysisRate()
        defer { source.close() }
        let log = FeatureLog()
        _ = try FileAnalysis.analyse(
            source: source, configuration: AnalysisConfiguration(), classifier: FeatureRecordingClassifier(log: log))
        let matched = DatasetPlan.match(truth: truth.map(\.onset), detections: log.onsets, tolerance: tolerance)
        let name = "labelled-" + ((audio as NSString).lastPathComponent as NSString).deletingPathExtension
        return log.rows.indices.map { d in
            let event = matched[d].map { truth[$0] }
            let nearStep = event == nil && truth.contains { $0.isFootstep && abs($0.onset - log.onsets[d]) <= 0.15 }
            return DatasetRow(
                source: name, split: split.rawValue, onset: log.onsets[d],
                label: event?.trainingLabel ?? EventKind.other.rawValue,
                truthLabel: nearStep ? "near_footstep" : (event.map { "labelled_" + $0.label } ?? "none"),
                snrDB: 0, ceiling: false, floor: "labelled", features: log.rows[d], picture: log.pictures[d])
        }
    }
}
