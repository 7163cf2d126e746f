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
