import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// `[levels] calibration_offset` in the configuration file is a calibration:
/// stored (without a reference), and reports judge absolute rules with it.
@Suite("Calibration from the configuration file", .serialized)
struct ConfigurationCalibrationTests {
    static func record(offset: Double, state: String) async throws {
        var configuration = DaemonConfiguration()
        configuration.levels.calibrationOffset = offset
        let (group, _) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: "walking:duration=4"),
            options: DaemonOptions(stateDirectory: state, speed: 8), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        try await group.run()
    }

    static func report(config: String, session: Int64, output: String) throws -> [String: Any] {
        let result = try BuiltProduct.run(
            "footstepctl", ["report", "--config", config, "--session", String(session), "--format", "json", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        let path = try #require(result.stdout.split(separator: "\n").first { $0.hasSuffix(".json") }.map(String.init))
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test func aConfigurationOffsetIsStoredAsACalibrationAndRulesAreJudged() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let config = directory.appending("footstepd.toml")
        try "[paths]\nstate_dir = \"\(state)\"\n[levels]\ncalibration_offset = 100\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        try await Self.record(offset: 100, state: state)
        try await Self.record(offset: 100, state: state)  // unchanged: no new calibration row

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let calibrations = try database.calibrations()
        #expect(calibrations.count == 1)
        #expect(calibrations.first?.offsetDB == 100)
        #expect(calibrations.first?.method == "configuration file")
        #expect(calibrations.first?.reference == "no reference measurement")

        let json = try Self.report(config: config, session: 1, output: directory.appending("out"))
        let calibration = try #require(json["calibration"] as? [String: Any])
        #expect(calibration["status"] as? String == "calibrated")
        #expect(calibration["method"] as? String == "configuration file")
        #expect((calibration["label"] as? String)?.contains("+100.0 dB from the configuration file") == true)
        let rules = try #require(json["rules"] as? [[String: Any]])
        #expect(!rules.isEmpty)
        #expect(rules.allSatisfy { $0["judgeable"] as? Bool == true })

        // Removing the offset is recorded too: the next session is uncalibrated.
        try await Self.record(offset: 0, state: state)
        #expect(try database.calibrations().map(\.offsetDB) == [100, 0])
        let after = try Self.report(config: config, session: 3, output: directory.appending("out"))
        #expect((after["calibration"] as? [String: Any])?["status"] as? String == "uncalibrated")

        // A measured calibration wins over the file from then on.
        try database.addCalibration(measuredAt: Date(), offsetDB: 93.5, method: "94 dB calibrator", reference: "class 1 meter")
        try await Self.record(offset: 100, state: state)
        #expect(try database.calibrations().count == 3)
    }
}

/// The acceptance run of issue 18: a recording with a configuration-file
/// offset, one SIGKILL and one restart, reported with `report --config`.
@Suite("Evidence report after a kill and a restart", .serialized)
struct KilledSessionReportTests {
    @Test func theReportIsJudgedAddressedAndStatesCoverageInterruptionAndChainHead() throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let config = directory.appending("footstepd.toml")
        try """
            [paths]
            state_dir = "\(state)"
            [levels]
            calibration_offset = 100
            [reports]
            address = "Flat 2, 10 Example Road"
            directory = "\(directory.appending("reports"))"
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let started = Date()
        let pid = try DaemonTestSupport.spawnReadyFootstepd(
            ["--config", config, "--source", "demo:walking:seed=4,duration=3600", "--speed", "4"], in: directory.path)
        usleep(3_000_000)
        kill(pid, SIGKILL)
        #expect(DaemonTestSupport.wait(pid) == 128 + SIGKILL)
        let restart = try DaemonTestSupport.runFootstepd(
            ["--config", config, "--source", "demo:walking:seed=5,duration=20", "--speed", "20"])
        #expect(restart.status == 0, "\(restart.standardError)")

        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        let period = formatter.string(from: started.addingTimeInterval(-120)) + ".." + formatter.string(from: Date().addingTimeInterval(120))
        let report = try BuiltProduct.run("footstepctl", ["report", "--config", config, "--period", period, "--format", "json,html"])
        #expect(report.status == 0, "\(report.stderr)")
        let files = report.stdout.split(separator: "\n").map(String.init)
        let jsonPath = try #require(files.first { $0.hasSuffix(".json") })
        let htmlPath = try #require(files.first { $0.hasSuffix(".html") })
        #expect(jsonPath.hasPrefix(directory.appending("reports") + "/"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: jsonPath))) as? [String: Any])

        #expect(json["address"] as? String == "Flat 2, 10 Example Road")
        let rules = try #require(json["rules"] as? [[String: Any]])
        #expect(!rules.isEmpty && rules.allSatisfy { $0["judgeable"] as? Bool == true })
        let coverage = try #require(json["coverage"] as? [String: Any])
        let sessions = try #require(coverage["sessions"] as? [[String: Any]])
        #expect(sessions.compactMap { $0["status"] as? String } == ["interrupted", "completed"])
        #expect((coverage["recordedSeconds"] as? Double ?? 0) > 5)

        let verify = try BuiltProduct.run("footstepctl", ["verify", "--state-dir", state, "--json"])
        #expect(verify.status == 0, "\(verify.stderr)")
        let verified = try #require(try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])
        let chain = try #require(verified["chain"] as? [String: Any])
        let integrity = try #require(json["integrity"] as? [String: Any])
        #expect(integrity["headHash"] as? String == chain["headHash"] as? String)
        #expect(integrity["checkedEvents"] as? Int == chain["checkedEvents"] as? Int)
        #expect(integrity["intact"] as? Bool == true)

        let html = try String(contentsOfFile: htmlPath, encoding: .utf8)
        #expect(html.contains("Flat 2, 10 Example Road"))
        #expect(html.contains("<h2>Coverage</h2><p>Recorded "))
        #expect(html.contains("1 session was interrupted"))
        #expect(html.contains(try #require(chain["headHash"] as? String)))
        #expect(html.contains("from the configuration file"))
    }
}
