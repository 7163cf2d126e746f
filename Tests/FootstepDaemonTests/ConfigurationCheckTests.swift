import FootstepConfiguration
import FootstepDaemon
import FootstepTesting
import Foundation
import Testing

/// `footstepd --check-config` (the built binary) on generated bad
/// configurations: every numeric setting below and above its range, NaN and
/// of the wrong type; every enumeration out of its values; paths that cannot be
/// written or created; an unresolvable metrics address; a missing or corrupt
/// model; equalizer bands the capture rate cannot carry; unknown sections and
/// keys; broken TOML. Each must exit 78 and name its key.
@Suite("footstepd --check-config on generated bad configurations", .serialized)
struct ConfigurationCheckTests {
    /// Numeric settings with a value below and above their range; `integer` when a float is the wrong type.
    static let numeric: [(key: String, below: String, above: String, integer: Bool)] = [
        ("capture.sample_rate", "7999", "96001", true), ("capture.channels", "0", "3", true),
        ("capture.period_frames", "-1", "65537", true),
        ("recording.roll_interval", "59", "86401", false), ("recording.clip_before", "-0.1", "30.5", false),
        ("recording.clip_after", "0.4", "61", false), ("recording.sync_interval", "0.05", "11", false),
        ("detection.threshold", "0.05", "10.5", false), ("detection.min_interval", "0.01", "2.5", false),
        ("detection.min_confidence", "-0.1", "1.1", false),
        ("levels.calibration_offset", "-51", "201", false), ("levels.interval", "0.5", "3601", false),
        ("retention.max_audio_gb", "-1", "100001", false), ("retention.max_audio_days", "-1", "36501", true),
        ("retention.min_free_mb", "-1", "10000001", false), ("metrics.port", "-1", "65536", true),
        ("reports.keep", "0", "10001", true),
    ]

    /// One bad configuration: its TOML, the key its error must name, and whether
    /// it keeps the command line's `--state-dir`/`--socket` (off for path cases).
    struct Case: CustomStringConvertible {
        var toml: String
        var key: String
        var overridePaths = true
        var description: String { "\(key): \(toml.replacingOccurrences(of: "\n", with: " | "))" }
    }

    static func setting(_ key: String, _ value: String) -> String {
        let parts = key.split(separator: ".", maxSplits: 1)
        return "[\(parts[0])]\n\(parts[1]) = \(value)\n"
    }

    static func cases(work: String) throws -> [Case] {
        var cases: [Case] = []
        for entry in numeric {
            cases.append(Case(toml: setting(entry.key, entry.below), key: entry.key))
            cases.append(Case(toml: setting(entry.key, entry.above), key: entry.key))
            cases.append(Case(toml: setting(entry.key, entry.integer ? "1.5" : "nan"), key: entry.key))
            cases.append(Case(toml: setting(entry.key, "\"12\""), key: entry.key))
        }
        let notADirectory = "\(work)/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: notADirectory))
        let corruptModel = "\(work)/model.json"
        try Data("{\"format\": \"footstepd-event-classifier\", \"formatVersion\": 99}".utf8).write(to: URL(fileURLWithPath: corruptModel))
        cases += [
            Case(toml: setting("capture.device", "\"\""), key: "capture.device"),
            Case(toml: setting("capture.format", "\"MP3\""), key: "capture.format"),
            Case(toml: setting("recording.audio_format", "\"ogg\""), key: "recording.audio_format"),
            Case(toml: setting("recording.roll_interval", "\"4 hours\""), key: "recording.roll_interval"),
            Case(toml: setting("detection.gait_context", "\"yes\""), key: "detection.gait_context"),
            Case(toml: setting("detection.model", "\"\(work)/no-such-model.json\""), key: "detection.model"),
            Case(toml: setting("detection.model", "\"\(corruptModel)\""), key: "detection.model"),
            Case(toml: setting("schedule.mode", "\"sometimes\""), key: "schedule.mode"),
            Case(toml: "[schedule]\nmode = \"windows\"\n", key: "schedule.windows"),
            Case(toml: "[schedule]\nmode = \"windows\"\nwindows = [\"mon-fri 25:00-08:00\"]\n", key: "schedule.windows"),
            Case(toml: setting("reports.quiet_hours", "\"late\""), key: "reports.quiet_hours"),
            Case(toml: setting("reports.directory", "\"reports\""), key: "reports.directory"),
            Case(toml: setting("reports.directory", "\"\(notADirectory)/reports\""), key: "reports.directory"),
            Case(toml: setting("paths.state_dir", "\"state\""), key: "paths.state_dir", overridePaths: false),
            Case(
                toml: setting("paths.state_dir", "\"\(notADirectory)/state\"") + setting("socket.path", "\"\(work)/c.sock\""),
                key: "paths.state_dir", overridePaths: false),
            Case(
                toml: setting("paths.state_dir", "\"/proc/footstepd\"") + setting("socket.path", "\"\(work)/c.sock\""),
                key: "paths.state_dir", overridePaths: false),
            Case(
                toml: setting("paths.state_dir", "\"\(notADirectory)\"") + setting("socket.path", "\"\(work)/c.sock\""),
                key: "paths.state_dir", overridePaths: false),
            Case(
                toml: setting("paths.state_dir", "\"\(work)/state\"") + setting("socket.path", "\"\(notADirectory)/c.sock\""),
                key: "socket.path", overridePaths: false),
            Case(toml: setting("socket.path", "\"control.sock\""), key: "socket.path", overridePaths: false),
            Case(toml: setting("socket.path", "\"/\(String(repeating: "s", count: 120))\""), key: "socket.path", overridePaths: false),
            Case(toml: "[metrics]\nport = 9100\naddress = \"no-such-host.invalid\"\n", key: "metrics.address"),
            Case(toml: "[capture]\nsample_rate = 48000\n[[equalizer.band]]\nfrequency = 8000\n", key: "equalizer.band[0].frequency"),
            Case(toml: "[[equalizer.band]]\nchannel = 1\n", key: "equalizer.band[0].channel"),
            Case(toml: "[[equalizer.band]]\ntype = \"notch\"\n", key: "equalizer.band[0].type"),
            Case(toml: "[[equalizer.band]]\nq = 0\n", key: "equalizer.band[0].q"),
            Case(toml: String(repeating: "[[equalizer.band]]\nfrequency = 100\n", count: 15), key: "equalizer.band"),
            Case(toml: "[capture]\nsample_rat = 16000\n", key: "capture.sample_rat"),
            Case(toml: "[captur]\n", key: "captur"),
            Case(toml: "capture = 1\n", key: "capture"),
        ]
        return cases
    }

    @Test func everyGeneratedBadConfigurationExits78NamingItsKey() throws {
        let directory = try TemporaryDirectory(prefix: "check-config")
        let cases = try Self.cases(work: directory.path)
        #expect(cases.count >= 50)
        var failures: [String] = []
        for (index, item) in cases.enumerated() {
            let path = directory.appending("bad-\(index).toml")
            try item.toml.write(toFile: path, atomically: true, encoding: .utf8)
            var arguments = ["--check-config", "--config", path]
            if item.overridePaths {
                arguments += ["--state-dir", directory.appending("state"), "--socket", directory.appending("run/c.sock")]
            }
            let run = try BuiltProduct.run("footstepd", arguments)
            if run.status != 78 || !run.stderr.contains(": \(item.key): ") {
                failures.append("\(item) → exit \(run.status): \(run.stderr.prefix(300))")
            }
        }
        print("check-config: \(cases.count - failures.count) of \(cases.count) bad configurations rejected with their key")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func brokenTOMLExits78WithTheLine() throws {
        let directory = try TemporaryDirectory(prefix: "check-config")
        for (text, line) in [("[detection]\nthreshold = \n", 2), ("[detection]\nthreshold = 1\nthreshold = 2\n", 3)] {
            let path = directory.appending("broken.toml")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            let run = try BuiltProduct.run(
                "footstepd", ["--check-config", "--config", path, "--state-dir", directory.appending("s"), "--socket", directory.appending("c.sock")])
            #expect(run.status == 78)
            #expect(run.stderr.contains("line \(line)"), "\(run.stderr)")
        }
    }

    @Test func theShippedConfigurationPassesWithWritablePaths() throws {
        let directory = try TemporaryDirectory(prefix: "check-config")
        let run = try BuiltProduct.run(
            "footstepd",
            ["--check-config", "--config", DaemonConfigurationTests.shippedPath, "--state-dir", directory.appending("new/state"),
             "--socket", directory.appending("run/c.sock")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("state_dir = \"\(directory.appending("new/state"))\""))
        // The check creates nothing.
        #expect(!FileManager.default.fileExists(atPath: directory.appending("new")))
    }

    @Test func aReloadThatWouldFailKeepsTheRunningConfigurationAndNamesTheKey() throws {
        let directory = try TemporaryDirectory(prefix: "check-config")
        let path = directory.appending("footstepd.toml")
        try "[detection]\nthreshold = 2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = FootstepDaemonService(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking"),
            options: DaemonOptions(stateDirectory: directory.path, socketPath: directory.appending("c.sock")),
            logger: DaemonTestSupport.quietLogger)
        try daemon.reload(from: path)
        #expect(daemon.configuration.detection.threshold == 2)
        try "[detection]\nthreshold = 3\n[metrics]\nport = 9100\naddress = \"no-such-host.invalid\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try daemon.reload(from: path)
        } throws: { error in
            (error as? ConfigurationError)?.key == "metrics.address"
        }
        #expect(daemon.configuration.detection.threshold == 2)
    }
}
