import FootstepConfiguration
import FootstepCore
import FootstepDSP
import FootstepDaemon
import FootstepWire
import Foundation
import Testing

@Suite("Daemon configuration (TOML)")
struct DaemonConfigurationTests {
    static var shippedPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/footstepd.toml").path
    }

    @Test func theShippedFileParsesToTheDefaults() throws {
        let configuration = try DaemonConfiguration.load(path: Self.shippedPath)
        #expect(configuration == DaemonConfiguration())
    }

    @Test func theShippedFileIsTheRenderedDeclaration() throws {
        let shipped = try String(contentsOfFile: Self.shippedPath, encoding: .utf8)
        // Regenerate with `footstepd --print-default-config > config/footstepd.toml`.
        #expect(shipped == DaemonConfiguration.documentedTOML)
    }

    @Test func eachKeyIsDeclaredOnceAndEveryDeclaredKeyIsRead() throws {
        let names = DaemonConfiguration.settings.map(\.name)
        #expect(Set(names).count == names.count)
        // Every declared key is read: setting it to a wrong type names it.
        for setting in DaemonConfiguration.settings where !setting.key.isEmpty {
            let text = "[\(setting.section)]\n\(setting.key) = [[1]]\n"
            do {
                _ = try DaemonConfiguration.parse(text, file: "x.toml")
                Issue.record("\(setting.name) accepted an array of arrays")
            } catch {
                #expect(error.key == setting.name, "\(error)")
            }
        }
    }

    @Test func aConfigurationRoundTripsThroughItsRendering() throws {
        let configuration = try Self.unusual()
        #expect(configuration != DaemonConfiguration())
        let text = configuration.renderedTOML
        #expect(try DaemonConfiguration.parse(text, file: "rendered.toml") == configuration, "\(text)")
        #expect(try DaemonConfiguration.parse(DaemonConfiguration().renderedTOML, file: "x.toml") == DaemonConfiguration())
    }

    /// `GET /v1/config` sends every declared key, and its values (through JSON)
    /// written back as TOML are the same configuration.
    @Test func theAPIsValuesAreEveryKeyOfTheFile() throws {
        for configuration in [DaemonConfiguration(), try Self.unusual()] {
            let response = ConfigurationResponse(configuration, path: "/etc/footstepd/footstepd.toml")
            for setting in DaemonConfiguration.settings where !setting.key.isEmpty {
                #expect(response[setting.section, setting.key] != nil, "\(setting.name) missing")
            }
            let decoded = try JSONDecoder().decode(ConfigurationResponse.self, from: JSONEncoder().encode(response))
            #expect(decoded.path == "/etc/footstepd/footstepd.toml")
            let text = Self.toml(decoded.settings)
            #expect(try DaemonConfiguration.parse(text, file: "values.toml") == configuration, "\(text)")
        }
        let shipped = ConfigurationResponse(DaemonConfiguration(), path: nil)
        #expect(shipped["detection", "min_interval"] == .number(0.13))
        #expect(shipped["recording", "roll_interval"] == .number(14400))
        #expect(shipped["detection", "model"] == ConfigurationValue.none)
        #expect(shipped["capture", "no_such_key"] == nil)
    }

    /// A configuration with every section away from its defaults.
    static func unusual() throws -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        configuration.capture.device = "plughw:CARD=Device,DEV=0"
        configuration.capture.sampleRate = 48000
        configuration.capture.channels = 2
        configuration.capture.sampleFormat = .floatLE
        configuration.capture.microphone = "Behringer \"ECM8000\" \\ serial 42"
        configuration.recording.audioFormat = .wav
        configuration.recording.bitDepth = .float
        configuration.recording.rollInterval = 5400
        configuration.recording.clipBefore = 1.25
        configuration.detection.threshold = 2.5
        configuration.detection.minimumInterOnsetInterval = 0.2
        configuration.detection.gaitContext = false
        configuration.levels.calibrationOffset = 97.3
        configuration.equalizer = [
            [EQBand(kind: .highShelf, frequency: 2000, gainDB: -6, q: 0.7)],
            [EQBand(kind: .peaking, frequency: 120, gainDB: 3, q: 2)],
        ]
        configuration.schedule = .windows([
            try #require(MonitoringSchedule.window(parsing: "mon-fri 22:00-08:00")),
            try #require(MonitoringSchedule.window(parsing: "daily 13:00-14:00")),
        ])
        configuration.retention.maximumAudioBytes = 1_500_000_000
        configuration.retention.minimumFreeBytes = 250_000_000
        configuration.stateDirectory = "/srv/footstepd"
        configuration.socket.readGroup = "neighbours"
        configuration.metrics.port = 9464
        configuration.reports.quietHours = try #require(DailyWindow(parsing: "22:30-06:30"))
        configuration.reports.address = "Flat 2, 10 Example Road"
        configuration.reports.directory = "/srv/reports"
        configuration.reports.keep = 7
        return configuration
    }

    /// The API's values written as TOML, independently of the daemon's renderer.
    static func toml(_ settings: [String: [String: ConfigurationValue]]) -> String {
        func literal(_ value: ConfigurationValue) -> String {
            switch value {
            case let .text(text): "\"\(text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\""
            case let .integer(number): "\(number)"
            case let .number(number): "\(number)"
            case let .flag(flag): "\(flag)"
            case .none: "\"\""
            case let .list(values): "[\(values.map(literal).joined(separator: ", "))]"
            case let .table(values): "{ \(values.sorted { $0.key < $1.key }.map { "\($0.key) = \(literal($0.value))" }.joined(separator: ", ")) }"
            }
        }
        var lines: [String] = []
        for (section, keys) in settings.sorted(by: { $0.key < $1.key }) {
            if section == "equalizer" {
                for band in keys["band"]?.list ?? [] {
                    guard case let .table(fields) = band else { continue }
                    lines.append("[[equalizer.band]]")
                    lines += fields.sorted { $0.key < $1.key }.map { "\($0.key) = \(literal($0.value))" }
                }
                continue
            }
            lines.append("[\(section)]")
            lines += keys.sorted { $0.key < $1.key }.map { "\($0.key) = \(literal($0.value))" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func anEmptyFileGivesTheDefaults() throws {
        #expect(try DaemonConfiguration.parse("", file: "x.toml") == DaemonConfiguration())
    }

    @Test func settingsAreRead() throws {
        let configuration = try DaemonConfiguration.parse(
            """
            [capture]
            device = "plughw:CARD=Mic,DEV=0"
            sample_rate = 48000
            channels = 2
            [recording]
            audio_format = "wav"
            roll_interval = "30m"
            [detection]
            gait_context = false
            walks = false
            [levels]
            calibration_offset = 93.5
            [schedule]
            mode = "windows"
            windows = ["mon-fri 22:00-08:00", "sat,sun 23:30-09:00"]
            [[equalizer.band]]
            channel = 1
            type = "low_shelf"
            frequency = 120
            gain = 6
            """, file: "x.toml")
        #expect(configuration.capture.device == "plughw:CARD=Mic,DEV=0")
        #expect(configuration.capture.sampleRate == 48000)
        #expect(configuration.recording.audioFormat == .wav)
        #expect(configuration.recording.rollInterval == 1800)
        #expect(configuration.detection.gaitContext == false)
        #expect(configuration.analysisConfiguration.gaitContext == false)
        #expect(configuration.detection.walks == false && configuration.analysisConfiguration.walks == false)
        #expect(DaemonConfiguration().analysisConfiguration.walks)
        #expect(configuration.levels.calibrationOffset == 93.5)
        #expect(configuration.equalizer.count == 2)
        #expect(configuration.equalizer[1].first?.gainDB == 6)
        #expect(configuration.schedule.description == "mon,tue,wed,thu,fri 22:00-08:00; sat,sun 23:30-09:00")
    }

    @Test(arguments: [
        ("[capture]\nsample_rate = 4000", "x.toml: capture.sample_rate: 4000 is out of range (8000–96000)"),
        ("[capture]\nsample_rat = 16000", "x.toml: capture.sample_rat: unknown setting (check the spelling; see config/footstepd.toml for every setting)"),
        ("[captur]\n", "x.toml: captur: unknown section (known: capture, recording, detection, levels, equalizer, schedule, retention, paths, socket, metrics, reports, mqtt)"),
        ("[capture]\nchannels = \"two\"", "x.toml: capture.channels: expected an integer, found string"),
        ("[detection]\ngait_context = 1", "x.toml: detection.gait_context: expected true or false, found integer"),
        ("[recording]\naudio_format = \"mp3\"", "x.toml: recording.audio_format: 'mp3' is not one of 'flac', 'wav'"),
        ("[recording]\nbit_depth = \"32\"", "x.toml: recording.bit_depth: '32' is not one of '16', '24', 'float'"),
        ("[recording]\nbit_depth = \"float\"", "x.toml: recording.bit_depth: \"float\" samples need audio_format = \"wav\" (FLAC stores integers); use bit_depth = \"24\" with FLAC"),
        ("[recording]\nroll_interval = \"4 hours\"", "x.toml: recording.roll_interval: '4 hours' is not a duration like \"90s\", \"30m\" or \"4h\""),
        ("[schedule]\nmode = \"windows\"\nwindows = [\"weekdays 9-5\"]", "x.toml: schedule.windows: 'weekdays 9-5' is not a window like \"mon-fri 22:00-08:00\" or \"daily 23:00-07:00\""),
        ("[paths]\nstate_dir = \"relative\"", "x.toml: paths.state_dir: must be an absolute path"),
        ("[socket]\nadmin_group = \"\"", "x.toml: socket.admin_group: must name a group (e.g. \"footstepd-admin\"); an empty name gives no one access"),
        ("[socket]\nread_group = \"Foot Steps\"", "x.toml: socket.read_group: 'Foot Steps' is not a group name (lower-case letters, digits, '_' and '-', at most 32, not starting with a digit or '-')"),
        ("[[equalizer.band]]\nchannel = 1", "x.toml: equalizer.band[0].channel: 1 is out of range (0–0)"),
        // Above 45 % of the analysis rate the band cannot be built: the daemon used to stop at the next session.
        ("[[equalizer.band]]\nfrequency = 8000", "x.toml: equalizer.band[0].frequency: 8000.0 is out of range (10.0–7200.0)"),
    ])
    func invalidSettingsNameTheFileAndTheKey(text: String, message: String) {
        #expect(throws: ConfigurationError.self) { try DaemonConfiguration.parse(text, file: "x.toml") }
        do {
            _ = try DaemonConfiguration.parse(text, file: "x.toml")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aSyntaxErrorGivesTheLine() {
        do {
            _ = try DaemonConfiguration.parse("[capture]\ndevice = \"unterminated\n", file: "x.toml")
            Issue.record("parsed broken TOML")
        } catch {
            #expect(error.key == nil)
            #expect(error.description.hasPrefix("x.toml: line 2"))
        }
    }

    /// A model that is missing or is not a model stops the configuration
    /// (and so `--check-config` and a reload), not the next session.
    @Test func aDetectionModelThatDoesNotLoadIsRejectedWithItsKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (model, reason) in [("\(directory)/missing.json", "cannot read"), ("\(directory)/footstepd.toml", "not a footstepd model")] {
            let path = "\(directory)/footstepd.toml"
            try "[detection]\nmodel = \"\(model)\"\n".write(toFile: path, atomically: true, encoding: .utf8)
            do {
                _ = try DaemonConfiguration.load(path: path)
                Issue.record("loaded a configuration whose model is \(model)")
            } catch {
                #expect(error.key == "detection.model")
                #expect(error.message.contains(reason), "\(error.message)")
            }
        }
    }

    @Test func aMissingFileSaysSo() {
        #expect(throws: ConfigurationError(file: "/nonexistent/footstepd.toml", key: nil, message: "no such file")) {
            try DaemonConfiguration.load(path: "/nonexistent/footstepd.toml")
        }
    }

    @Test func scheduleWindowsWrapPastMidnight() throws {
        guard let window = MonitoringSchedule.window(parsing: "fri 22:00-08:00") else {
            Issue.record("window did not parse")
            return
        }
        let schedule = MonitoringSchedule.windows([window])
        func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
        // 2026-11-20 is a Friday.
        #expect(schedule.isActive(at: date("2026-11-20T23:00:00Z"), in: .utc))
        #expect(schedule.isActive(at: date("2026-11-21T07:59:00Z"), in: .utc))
        #expect(!schedule.isActive(at: date("2026-11-21T08:00:00Z"), in: .utc))
        #expect(!schedule.isActive(at: date("2026-11-21T23:00:00Z"), in: .utc))
        #expect(!schedule.isActive(at: date("2026-11-20T07:00:00Z"), in: .utc))
    }
}
