import FootstepCore
import FootstepAudio
import FootstepClassifier
import FootstepDSP
import Foundation
import TOMLKit

extension DaemonConfiguration {
    /// Reads and validates the configuration file at `path`.
    /// - Throws: `ConfigurationError` naming the file, the key and the problem.
    public static func load(path: String) throws(ConfigurationError) -> DaemonConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions or not UTF-8)" : "no such file"
            throw ConfigurationError(file: path, key: nil, message: reason)
        }
        let configuration = try parse(text, file: path)
        try configuration.checkFiles(file: path)
        return configuration
    }

    /// Checks what the text alone cannot show: that the files it names can be
    /// used (a model that is missing or does not load would otherwise stop the
    /// daemon at its next session, after `--check-config` and a reload passed).
    public func checkFiles(file: String) throws(ConfigurationError) {
        if let model = detection.modelPath {
            do {
                _ = try FootstepModel.load(contentsOf: URL(fileURLWithPath: model))
            } catch {
                throw ConfigurationError(file: file, key: "detection.model", message: "\(error)")
            }
        }
    }

    /// Parses configuration `text`; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> DaemonConfiguration {
        let document: TOMLTable
        do {
            document = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(
                file: file, key: nil,
                message: "line \(error.source.begin.line), column \(error.source.begin.column): \(error.description)")
        } catch {
            throw ConfigurationError(file: file, key: nil, message: "not valid TOML: \(error)")
        }
        let settings = settings
        var known: [String] = []
        for setting in settings where !known.contains(setting.section) { known.append(setting.section) }
        for key in document.keys where !known.contains(key) {
            throw ConfigurationError(file: file, key: key, message: "unknown section (known: \(known.joined(separator: ", ")))")
        }
        var configuration = DaemonConfiguration()
        for name in known {
            var section: TOMLSection
            if let raw = document[name] {
                guard let table = raw.table else {
                    throw ConfigurationError(file: file, key: name, message: "expected a table [\(name)], found \(raw.type)")
                }
                section = TOMLSection(file: file, name: name, table: table)
            } else {
                section = TOMLSection(file: file, name: name, table: nil)
            }
            for setting in settings where setting.section == name {
                try setting.read(&section, &configuration)
            }
            try section.finish()
        }
        if !configuration.recording.bitDepth.fits(configuration.recording.audioFormat) {
            throw ConfigurationError(
                file: file, key: "recording.bit_depth",
                message: "\"float\" samples need audio_format = \"wav\" (FLAC stores integers); use bit_depth = \"24\" with FLAC")
        }
        return configuration
    }
}

extension TOMLSection {
    /// A duration given as seconds (number) or text with a unit: "90s", "30m", "4h".
    mutating func duration(_ key: String, default fallback: Double, range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        if let text = try? string(key, default: ""), !text.isEmpty {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
            guard let unit = text.last.flatMap({ units[$0] }), let value = Double(text.dropLast()) else {
                throw error(key, "'\(text)' is not a duration like \"90s\", \"30m\" or \"4h\"")
            }
            let seconds = value * unit
            guard range.contains(seconds) else { throw error(key, "\(text) is out of range (\(Int(range.lowerBound)) s – \(Int(range.upperBound)) s)") }
            return seconds
        }
        return try double(key, default: fallback, range: range)
    }

    /// `[[equalizer.band]]` tables: channel, type, frequency, gain, q.
    /// - Parameter sampleRate: the analysis rate: a band must lie below 45 % of it
    ///   (`EQBand.frequencyRange`), as the equalizer requires when a session starts.
    mutating func bands(channels: Int, sampleRate: Double) throws(ConfigurationError) -> [[EQBand]] {
        let tables = try tables("band")
        guard !tables.isEmpty else { return [] }
        var perChannel = [[EQBand]](repeating: [], count: channels)
        for (index, table) in tables.enumerated() {
            var band = TOMLSection(file: file, name: "\(name).band[\(index)]", table: table)
            let channel = try band.int("channel", default: 0, range: 0...(channels - 1))
            let type = try band.string("type", default: "peaking", allowed: ["peaking", "low_shelf", "high_shelf"])
            let frequency = try band.double("frequency", default: 1000, range: EQBand.frequencyRange(sampleRate: sampleRate))
            let gain = try band.double("gain", default: 0, range: -24...24)
            let q = try band.double("q", default: 1, range: 0.1...20)
            try band.finish()
            perChannel[channel].append(EQBand(kind: EQBand.Kind(rawValue: type)!, frequency: frequency, gainDB: gain, q: q))
        }
        for (channel, bands) in perChannel.enumerated() where bands.count > 14 {
            throw ConfigurationError(file: file, key: key("band"), message: "channel \(channel) has \(bands.count) bands; at most 14 are allowed")
        }
        return perChannel
    }
}
