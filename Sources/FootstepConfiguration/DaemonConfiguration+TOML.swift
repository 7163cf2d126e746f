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
        var configuration = DaemonConfiguration()
        func section(_ name: String) throws(ConfigurationError) -> TOMLSection {
            guard let raw = document[name] else { return TOMLSection(file: file, name: name, table: nil) }
            guard let table = raw.table else {
                throw ConfigurationError(file: file, key: name, message: "expected a table [\(name)], found \(raw.type)")
            }
            return TOMLSection(file: file, name: name, table: table)
        }
        let known = ["capture", "recording", "detection", "levels", "equalizer", "schedule", "retention", "paths", "socket", "metrics", "reports"]
        for key in document.keys where !known.contains(key) {
            throw ConfigurationError(file: file, key: key, message: "unknown section (known: \(known.joined(separator: ", ")))")
        }

        var capture = try section("capture")
        configuration.capture.device = try capture.string("device", default: "default")
        if configuration.capture.device.isEmpty { throw capture.error("device", "must not be empty") }
        configuration.capture.sampleRate = try capture.int("sample_rate", default: 16000, range: 8000...96000)
        configuration.capture.channels = try capture.int("channels", default: 1, range: 1...2)
        let format = try capture.string("format", default: "S16_LE", allowed: CaptureSampleFormat.allCases.map(\.rawValue))
        configuration.capture.sampleFormat = CaptureSampleFormat(rawValue: format)!
        configuration.capture.periodFrames = try capture.int("period_frames", default: 0, range: 0...65536)
        configuration.capture.microphone = try capture.string("microphone", default: "")
        configuration.capture.placement = try capture.string("placement", default: "")
        try capture.finish()

        var recording = try section("recording")
        let container = try recording.string("audio_format", default: "flac", allowed: ["flac", "wav"])
        configuration.recording.audioFormat = AudioFileContainer(rawValue: container)!
        configuration.recording.rollInterval = try recording.duration("roll_interval", default: 4 * 3600, range: 60...86400)
        configuration.recording.clipBefore = try recording.double("clip_before", default: 2, range: 0...30)
        configuration.recording.clipAfter = try recording.double("clip_after", default: 3, range: 0.5...60)
        configuration.recording.syncInterval = try recording.double("sync_interval", default: 1, range: 0.1...10)
        try recording.finish()

        var detection = try section("detection")
        configuration.detection.threshold = try detection.double("threshold", default: 1, range: 0.1...10)
        configuration.detection.minimumInterOnsetInterval = try detection.double("min_interval", default: 0.13, range: 0.02...2)
        configuration.detection.minimumConfidence = try detection.double("min_confidence", default: 0.5, range: 0...1)
        configuration.detection.modelPath = try detection.optionalString("model")
        configuration.detection.gaitContext = try detection.bool("gait_context", default: true)
        try detection.finish()

        var levels = try section("levels")
        configuration.levels.calibrationOffset = try levels.double("calibration_offset", default: 0, range: -50...200)
        configuration.levels.interval = try levels.double("interval", default: 60, range: 1...3600)
        try levels.finish()

        var equalizer = try section("equalizer")
        configuration.equalizer = try equalizer.bands(
            channels: configuration.capture.channels, sampleRate: Double(configuration.capture.sampleRate))
        try equalizer.finish()

        var schedule = try section("schedule")
        let mode = try schedule.string("mode", default: "always", allowed: ["always", "windows"])
        let windows = try schedule.stringArray("windows", default: [])
        if mode == "windows" {
            var parsed: [MonitoringSchedule.Window] = []
            for text in windows {
                guard let window = MonitoringSchedule.window(parsing: text) else {
                    throw schedule.error("windows", "'\(text)' is not a window like \"mon-fri 22:00-08:00\" or \"daily 23:00-07:00\"")
                }
                parsed.append(window)
            }
            if parsed.isEmpty { throw schedule.error("windows", "mode \"windows\" needs at least one window") }
            configuration.schedule = .windows(parsed)
        }
        try schedule.finish()

        var retention = try section("retention")
        configuration.retention.maximumAudioBytes = Int64(try retention.double("max_audio_gb", default: 20, range: 0...100_000) * 1e9)
        configuration.retention.maximumAudioDays = try retention.int("max_audio_days", default: 90, range: 0...36500)
        configuration.retention.minimumFreeBytes = Int64(try retention.double("min_free_mb", default: 500, range: 0...10_000_000) * 1e6)
        try retention.finish()

        var paths = try section("paths")
        configuration.stateDirectory = try paths.string("state_dir", default: "/var/lib/footstepd")
        if !configuration.stateDirectory.hasPrefix("/") { throw paths.error("state_dir", "must be an absolute path") }
        try paths.finish()

        var socket = try section("socket")
        configuration.socket.path = try socket.string("path", default: "/run/footstepd/control.sock")
        if !configuration.socket.path.hasPrefix("/") { throw socket.error("path", "must be an absolute path") }
        if configuration.socket.path.utf8.count > 107 { throw socket.error("path", "is longer than the 107 bytes a Unix socket path may have") }
        configuration.socket.readGroup = try socket.string("read_group", default: "footstepd")
        configuration.socket.adminGroup = try socket.string("admin_group", default: "footstepd-admin")
        try socket.finish()

        var metrics = try section("metrics")
        configuration.metrics.port = try metrics.int("port", default: 0, range: 0...65535)
        configuration.metrics.address = try metrics.string("address", default: "127.0.0.1")
        try metrics.finish()

        var reports = try section("reports")
        let quiet = try reports.string("quiet_hours", default: "23:00-07:00")
        guard let quietHours = DailyWindow(parsing: quiet) else {
            throw reports.error("quiet_hours", "'\(quiet)' is not a time window like \"23:00-07:00\"")
        }
        configuration.reports.quietHours = quietHours
        configuration.reports.address = try reports.string("address", default: "")
        configuration.reports.notes = try reports.string("notes", default: "")
        configuration.reports.directory = try reports.optionalString("directory")
        if let directory = configuration.reports.directory, !directory.hasPrefix("/") {
            throw reports.error("directory", "must be an absolute path")
        }
        configuration.reports.keep = try reports.int("keep", default: 30, range: 1...10000)
        try reports.finish()
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
    /// - Parameter sampleRate: `capture.sample_rate`: a band must lie below 45 % of it
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
