import ArgumentParser
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Foundation

/// Scenarios built from real recordings (`tools/real_footstep_check.py
/// --make-training`): each `NAME.wav` in a directory with its `NAME.csv`
/// ground truth (`onset_s,kind,label`; `kind` is footstep or other, a
/// footstep's label starts with its gait, `walking:` or `running:`). Walking
/// steps are labelled `heel_strike`, running steps `running`, everything else
/// `other`; matching is the synthetic scenarios' (nearest truth within ±50 ms,
/// unmatched detections within 150 ms of a step are `near_footstep`).
enum LabelledRecordings {
    struct TruthEvent {
        var onset: Double
        var isFootstep: Bool
        var label: String

        /// The class a detection of this event trains.
        var trainingLabel: String {
            guard isFootstep else { return EventKind.other.rawValue }
            return label.hasPrefix("running") ? FootstepType.running.rawValue : FootstepType.heelStrike.rawValue
        }
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
            let onset = header.firstIndex(of: "onset_s"), let kind = header.firstIndex(of: "kind"),
            let label = header.firstIndex(of: "label")
        else { throw ValidationError("'\(path)' lacks the onset_s,kind,label header") }
        return try lines.dropFirst().enumerated().map { number, line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > max(onset, kind, label), let time = Double(fields[onset]) else {
                throw ValidationError("'\(path)' line \(number + 2): expected onset_s,kind,label")
            }
            return TruthEvent(onset: time, isFootstep: fields[kind] == EventKind.footstep.rawValue, label: fields[label])
        }
    }

    /// Runs `audio` through the pipeline and labels its detections from its truth.
    static func rows(file audio: String, split: DatasetPlan.Split, tolerance: Double = 0.05) throws -> [DatasetRow] {
        let truth = try truth(of: audio)
        let source = try AudioFileSource(path: audio)
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
                snrDB: 0, ceiling: false, floor: "labelled", features: log.rows[d])
        }
    }
}
