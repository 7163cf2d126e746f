import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import Foundation

/// One labelled detection.
struct DatasetRow {
    static let header =
        "source,split,onset_s,label,truth_label,snr_db,ceiling,floor," + EventFeatures.names.joined(separator: ",")
    var source: String
    var split: String
    var onset: Double
    /// Class: a footstep type or `other`.
    var label: String
    /// The matched ground-truth label (`none` when nothing matched).
    var truthLabel: String
    var snrDB: Double
    var ceiling: Bool
    var floor: String
    var features: [Double]
    /// The event's picture (`EventPicture.values`), written apart from the CSV (`--pictures`).
    var picture: [Float]

    var csvLine: String {
        var line = "\(source),\(split),\(String(format: "%.4f", onset)),\(label),\(truthLabel),"
        line += String(format: "%.1f", snrDB) + ",\(ceiling ? 1 : 0),\(floor)"
        for value in features { line += "," + String(format: "%.5g", value) }
        return line
    }
}

/// The scenarios of a split, drawn from seeds: all four footstep scenarios,
/// mixed bouts, distractors and backgrounds-only; ceiling on and off; both
/// floors; SNR 0–25 dB; backgrounds with pink/brown noise, hum, music, babble.
enum DatasetPlan {
    enum Split: String {
        case train, validation
        /// Disjoint seed ranges.
        var seedBase: UInt64 { self == .train ? 1_000 : 9_000_000 }
    }

    /// Bump when the plan or the labelling changes (recorded in the model file).
    static let version = "synthetic-v3"

    static let names: [SynthesisScenario.Name] = [
        .walking, .running, .stomping, .shuffling, .mixed, .distractors, .walking, .running, .stomping, .shuffling,
        .distractors, .background, .night, .distractors,
    ]

    static let backgroundSets: [[BackgroundLayer]] = [
        [BackgroundLayer(.pink), BackgroundLayer(.hum50, relativeLevelDB: -10)],
        [BackgroundLayer(.brown), BackgroundLayer(.pink, relativeLevelDB: -3), BackgroundLayer(.hum50, relativeLevelDB: -12)],
        [BackgroundLayer(.pink), BackgroundLayer(.babble, relativeLevelDB: -2)],
        [BackgroundLayer(.pink), BackgroundLayer(.music, relativeLevelDB: -3)],
        [
            BackgroundLayer(.pink), BackgroundLayer(.hum60, relativeLevelDB: -8), BackgroundLayer(.babble, relativeLevelDB: -4),
            BackgroundLayer(.music, relativeLevelDB: -6),
        ],
    ]

    static func scenarios(split: Split, count: Int, duration: Double) -> [SynthesisScenario] {
        (0..<count).map { index in
            let seed = split.seedBase + UInt64(index)
            var rng = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15)
            var scenario = SynthesisScenario(names[index % names.count], seed: seed)
            scenario.duration = duration
            scenario.ceiling = rng.unit() < 0.7
            scenario.floor = rng.unit() < 0.5 ? .timberJoist : .concreteSlab
            scenario.snrDB = 25 * rng.unit()
            scenario.snrSpreadDB = 3
            if scenario.name != .background {
                scenario.backgrounds = backgroundSets[Int(rng.unit() * Double(backgroundSets.count)) % backgroundSets.count]
            }
            if scenario.name == .distractors, !scenario.backgrounds.contains(where: { $0.kind == .music }),
                rng.unit() < 0.5
            {
                scenario.backgrounds.append(BackgroundLayer(.music, relativeLevelDB: -6))
            }
            return scenario
        }
    }

    static func describe(_ scenario: SynthesisScenario) -> String {
        let layers = scenario.backgrounds.map(\.kind.rawValue).joined(separator: "+")
        return "\(scenario.name.rawValue)-\(scenario.seed)-\(layers)"
    }

    /// Runs `scenario` through the pipeline and labels its detections.
    static func rows(for scenario: SynthesisScenario, tolerance: Double = 0.05) throws -> [DatasetRow] {
        let source = try SyntheticSource(scenario: scenario)
        let truth = source.groundTruth
        let log = FeatureLog()
        let result = try FileAnalysis.analyse(
            source: source, configuration: AnalysisConfiguration(), classifier: FeatureRecordingClassifier(log: log))
        precondition(result.events.count == log.rows.count)
        let split = scenario.seed >= Split.validation.seedBase ? "validation" : "train"
        let matched = match(truth: truth.map(\.onset), detections: log.onsets, tolerance: tolerance)
        return log.rows.indices.map { d in
            let event = matched[d].map { truth[$0] }
            let label = event?.footstepType?.rawValue ?? EventKind.other.rawValue
            // An unmatched detection within 150 ms of a footstep is that step seen late or
            // twice (soft shuffle onsets, toe contacts): neither a clean footstep nor `other`.
            if event == nil, truth.contains(where: { $0.kind == .footstep && abs($0.onset - log.onsets[d]) <= 0.15 }) {
                return DatasetRow(
                    source: describe(scenario), split: split, onset: log.onsets[d], label: label,
                    truthLabel: "near_footstep", snrDB: scenario.snrDB, ceiling: scenario.ceiling,
                    floor: scenario.floor.rawValue, features: log.rows[d], picture: log.pictures[d])
            }
            return DatasetRow(
                source: describe(scenario), split: split, onset: log.onsets[d], label: label,
                truthLabel: event?.label ?? "none", snrDB: event?.snrDB ?? scenario.snrDB, ceiling: scenario.ceiling,
                floor: scenario.floor.rawValue, features: log.rows[d], picture: log.pictures[d])
        }
    }

    /// For each detection, the index of the truth it matches: each truth takes its
    /// nearest unmatched detection within the tolerance (as `DetectionScore`).
    static func match(truth: [Double], detections: [Double], tolerance: Double) -> [Int?] {
        var matched = [Int?](repeating: nil, count: detections.count)
        for (t, onset) in truth.enumerated() {
            var best: Int?
            for (d, detected) in detections.enumerated() where abs(detected - onset) <= tolerance && matched[d] == nil {
                if best == nil || abs(detected - onset) < abs(detections[best!] - onset) { best = d }
            }
            if let best { matched[best] = t }
        }
        return matched
    }
}
