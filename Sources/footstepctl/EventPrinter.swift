import FootstepAnalysis
import FootstepClassifier
import FootstepCore
import Foundation

/// Prints analysis results on stdout as a table, CSV or JSON lines.
struct EventPrinter {
    let format: FootstepCtl.Analyze.OutputFormat
    let quiet: Bool
    let multipleFiles: Bool
    let bouts: Bool
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    private static let csvHeader = "onset_s,duration_s,kind,type,confidence,intensity,la_max,lc_max,peak_dbfs"

    init(format: FootstepCtl.Analyze.OutputFormat, quiet: Bool, multipleFiles: Bool, bouts: Bool = false) {
        self.format = format
        self.bouts = bouts
        self.quiet = quiet
        self.multipleFiles = multipleFiles
        if format == .csv, !quiet {
            Swift.print(multipleFiles ? "file," + Self.csvHeader : Self.csvHeader)
        }
    }

    func print(_ result: FileAnalysisResult) {
        switch format {
        case .table: printTable(result)
        case .csv: printCSV(result)
        case .jsonl: printJSONLines(result)
        }
        if bouts { printBouts(result) }
    }

    /// The gait bouts of a result's footsteps.
    static func bouts(of result: FileAnalysisResult) -> [GaitBout] {
        GaitBoutTracker.bouts(of: result.events.filter { $0.kind == .footstep }.map { ($0.onsetSeconds, $0.type) })
    }

    private func printBouts(_ result: FileAnalysisResult) {
        let bouts = Self.bouts(of: result)
        switch format {
        case .table:
            Swift.print(String(format: "%d gait bouts", bouts.count))
            guard !bouts.isEmpty else { return }
            Swift.print(String(format: "%10@ %10@ %6@ %8@  %-12@ %@", "start_s", "end_s", "steps", "steps/s", "type", "gait"))
            for bout in bouts {
                Swift.print(
                    String(
                        format: "%10.3f %10.3f %6d %8.2f  %-12@ %@", bout.start, bout.end, bout.steps, bout.cadence,
                        bout.dominantType.rawValue, bout.gait.rawValue))
            }
        case .csv:
            Swift.print("bout_start_s,bout_end_s,steps,cadence_hz,dominant_type,gait")
            for bout in bouts {
                Swift.print(
                    String(
                        format: "%.3f,%.3f,%d,%.3f,%@,%@", bout.start, bout.end, bout.steps, bout.cadence,
                        bout.dominantType.rawValue, bout.gait.rawValue))
            }
        case .jsonl:
            for bout in bouts {
                let line = JSONBout(
                    file: result.path, start: (bout.start * 1000).rounded() / 1000, end: (bout.end * 1000).rounded() / 1000,
                    steps: bout.steps, cadence: (bout.cadence * 100).rounded() / 100, type: bout.dominantType.rawValue,
                    gait: bout.gait.rawValue)
                if let data = try? encoder.encode(line) { Swift.print(String(decoding: data, as: UTF8.self)) }
            }
        }
    }

    private struct JSONBout: Encodable {
        var record = "bout"
        var file: String
        var start: Double
        var end: Double
        var steps: Int
        var cadence: Double
        var type: String
        var gait: String
        enum CodingKeys: String, CodingKey {
            case record, file, start = "start_s", end = "end_s", steps, cadence = "cadence_hz", type = "dominant_type", gait
        }
    }

    private func printTable(_ result: FileAnalysisResult) {
        if multipleFiles { Swift.print("== \(result.path)") }
        if !quiet {
            Swift.print(String(format: "%10@ %8@  %-8@ %-12@ %6@  %-6@ %7@ %7@ %9@", "onset_s", "dur_s", "kind", "type", "conf", "int", "LAFmax", "LCFmax", "peak_dBFS"))
            for event in result.events {
                Swift.print(
                    String(
                        format: "%10.3f %8.3f  %-8@ %-12@ %6.2f  %-6@ %7.1f %7.1f %9.1f", event.onsetSeconds,
                        event.duration, event.kind.rawValue, event.type.rawValue, event.confidence,
                        event.intensity.rawValue, event.laMax, event.lcMaxLevel, event.peakDBFS))
            }
        }
        let counts = result.countsByLabel.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        Swift.print(
            String(format: "%d events in %.1f s (%@): %@; LAeq %.1f dB(A)", result.events.count, result.durationSeconds,
                   result.format.description, counts.isEmpty ? "none" : counts.joined(separator: ", "), result.laeq))
    }

    private func printCSV(_ result: FileAnalysisResult) {
        guard !quiet else { return }
        let prefix = multipleFiles ? csvField(result.path) + "," : ""
        for event in result.events {
            Swift.print(
                prefix
                    + String(
                        format: "%.3f,%.3f,%@,%@,%.3f,%@,%.1f,%.1f,%.1f", event.onsetSeconds, event.duration,
                        event.kind.rawValue, event.type.rawValue, event.confidence, event.intensity.rawValue,
                        event.laMax, event.lcMaxLevel, event.peakDBFS))
        }
    }

    private func printJSONLines(_ result: FileAnalysisResult) {
        if !quiet {
            for event in result.events {
                let line = JSONLine(file: result.path, event: event)
                if let data = try? encoder.encode(line) { Swift.print(String(decoding: data, as: UTF8.self)) }
            }
        }
        let summary = JSONSummary(
            file: result.path, events: result.events.count, byLabel: result.countsByLabel,
            durationSeconds: result.durationSeconds, laeq: (result.laeq * 10).rounded() / 10,
            invalidSamples: result.invalidSamples, error: result.sourceError?.description)
        if let data = try? encoder.encode(summary) { Swift.print(String(decoding: data, as: UTF8.self)) }
    }

    private func csvField(_ value: String) -> String {
        value.contains(",") || value.contains("\"") ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value
    }

    private struct JSONLine: Encodable {
        var file: String
        var event: AnalyzedEvent
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode("event", forKey: .record)
            try container.encode(file, forKey: .file)
            try container.encode((event.onsetSeconds * 1000).rounded() / 1000, forKey: .onset)
            try container.encode((event.duration * 1000).rounded() / 1000, forKey: .duration)
            try container.encode(event.kind, forKey: .kind)
            try container.encode(event.type, forKey: .type)
            try container.encode((event.confidence * 1000).rounded() / 1000, forKey: .confidence)
            try container.encode((event.footstepProbability * 1000).rounded() / 1000, forKey: .footstepProbability)
            try container.encode(TypeShares(event.typeProbabilities), forKey: .typeProbabilities)
            try container.encode(event.intensity, forKey: .intensity)
            try container.encode((event.laMax * 10).rounded() / 10, forKey: .laMax)
            try container.encode((event.lcMaxLevel * 10).rounded() / 10, forKey: .lcMax)
            try container.encode((event.peakDBFS * 10).rounded() / 10, forKey: .peak)
            try container.encode((event.sel * 10).rounded() / 10, forKey: .sel)
        }
        enum Key: String, CodingKey {
            case record, file, onset = "onset_s", duration = "duration_s", kind, type, confidence, intensity
            case footstepProbability = "footstep_probability", typeProbabilities = "type_probabilities"
            case laMax = "la_max", lcMax = "lc_max", peak = "peak_dbfs", sel
        }
    }

    /// The classifier's type probabilities, by the types' names, to three decimals.
    private struct TypeShares: Encodable {
        var stomping, heelStrike, shuffling, running: Double
        init(_ p: TypeProbabilities) {
            func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
            stomping = rounded(p.stomping)
            heelStrike = rounded(p.heelStrike)
            shuffling = rounded(p.shuffling)
            running = rounded(p.running)
        }
        enum CodingKeys: String, CodingKey {
            case stomping, heelStrike = "heel_strike", shuffling, running
        }
    }

    private struct JSONSummary: Encodable {
        var record = "summary"
        var file: String
        var events: Int
        var byLabel: [String: Int]
        var durationSeconds: Double
        var laeq: Double
        /// Samples that were not finite or out of range, analysed as silence.
        var invalidSamples: Int
        var error: String?
        enum CodingKeys: String, CodingKey {
            case record, file, events, byLabel = "by_label", durationSeconds = "duration_s", laeq
            case invalidSamples = "invalid_samples", error
        }
    }
}
