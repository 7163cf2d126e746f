import ArgumentParser
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import Foundation

/// Recordings of non-footstep sounds (door, knock, drop, thud, speech, music)
/// from freely licensed Debian packages, listed in
/// tools/training-data/manifest.csv and fetched as 16 kHz WAVs by
/// tools/training-data/fetch.sh. Every detection in them is `other`. Files
/// are split between train and validation by a hash of their name, so no
/// recording is in both.
enum RealNegatives {
    static let categories: Set<String> = ["door", "knock", "drop", "thud", "speech", "music", "other"]
    /// At most this many detections per file (long music files would dominate otherwise).
    static let maximumRowsPerFile = 120

    static func split(of name: String) -> DatasetPlan.Split {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash % 4 == 0 ? .validation : .train
    }

    /// (file path, category) of the manifest's negatives present in `directory`, for `split`.
    static func files(manifest: String, directory: String, split: DatasetPlan.Split) throws -> [(String, String)] {
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst().split(separator: ",").map(String.init)
        guard let package = header.firstIndex(of: "package"), let path = header.firstIndex(of: "path_in_package"),
            let category = header.firstIndex(of: "category")
        else { throw ValidationError("manifest '\(manifest)' lacks package/path_in_package/category columns") }
        var result: [(String, String)] = []
        for line in lines {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            guard fields.count > max(package, path, category), categories.contains(fields[category]) else { continue }
            // fetch.sh flattens both '/' and a group archive's '::' (OpenClonk) into '_'.
            var name = fields[package] + "__" + fields[path].replacingOccurrences(of: "::", with: "_")
                .replacingOccurrences(of: "/", with: "_")
            if let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) }
            name += ".wav"
            let file = (directory as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: file), self.split(of: name) == split {
                result.append((file, fields[category]))
            }
        }
        return result
    }

    static func rows(file: String, category: String, split: DatasetPlan.Split) throws -> [DatasetRow] {
        let source = try AudioFileSource(path: file)
        defer { source.close() }
        let log = FeatureLog()
        _ = try FileAnalysis.analyse(
            source: source, configuration: AnalysisConfiguration(), classifier: FeatureRecordingClassifier(log: log))
        let name = "real-" + ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            .replacingOccurrences(of: ",", with: "_")
        return log.rows.indices.prefix(maximumRowsPerFile).map { d in
            DatasetRow(
                source: name, split: split.rawValue, onset: log.onsets[d], label: "other", truthLabel: "real_" + category,
                snrDB: 0, ceiling: false, floor: "none", features: log.rows[d])
        }
    }
}
