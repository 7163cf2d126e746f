import FootstepCore
@testable import FootstepMQTT
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// Whether python3 can import jsonschema (`scripts/install-deps.sh` installs it).
let jsonSchemaValidatorAvailable =
    (try? Subprocess.run(
        "/usr/bin/env", ["python3", "-c", "import jsonschema"], environment: ProcessInfo.processInfo.environment))?
    .status == 0

/// Every topic's payload, made from real store records, validated against its JSON Schema in `docs/mqtt/` by
/// Python's `jsonschema` (Draft 2020-12): the documented shape is the published one.
@Suite("MQTT payload schemas", .enabled(if: jsonSchemaValidatorAvailable, "python3 with jsonschema is missing"))
struct PayloadSchemaTests {
    static let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/mqtt").path

    static let validator = URL(fileURLWithPath: schemas).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/check-json-schemas.py").path

    /// The test's own environment: python3 may live outside the plain PATH (pyenv).
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static func validate(_ directory: String) throws -> Subprocess.Result {
        try Subprocess.run("/usr/bin/env", ["python3", validator, schemas, directory], environment: environment)
    }

    @Test func everyTopicsPayloadMatchesItsSchema() throws {
        let directory = try TemporaryDirectory()
        let (plain, session) = try makeStore(in: directory)
        // Rules exceeded by each step (an event) and by their hour (a count), on calibrated levels.
        try plain.addCalibration(measuredAt: referenceStart.addingTimeInterval(-60), offsetDB: 90, method: "calibrator", reference: "x")
        let store = plain.checkingRules(RuleWatch(
            rules: [
                ReportRule(name: "loud step", metric: .lafmax, threshold: 45),
                ReportRule(name: "busy hour", metric: .eventsPerHour, threshold: 2),
            ], quietHours: DailyWindow(start: 23 * 60, end: 7 * 60), zone: .utc))
        let ids = try storeSteps(store, session: session, first: 0, count: 3)
        let events = try store.events(ids: ids)
        try store.reviseTypes(
            [NewTypeRevision(frameOffset: events[1].frameOffset, type: .stomping, confidence: 0.8)], sessionId: session,
            reason: "bout vote")
        try store.addGap(
            sessionId: session, from: referenceStart.addingTimeInterval(5), to: referenceStart.addingTimeInterval(9),
            reason: "device lost")
        try store.appendLevels([
            LevelMinuteRecord(
                sessionId: session, startedAt: referenceStart, laeq: 31.5, lceq: 44, lafMax: 52.25, lafMin: 25, la10: 35,
                la90: 27.5)
        ])
        try store.endSession(session, at: referenceStart.addingTimeInterval(120), reason: "stopped on request (footstepctl stop)")
        var payloads = try store.outbox().compactMap(MQTTPayloads.message(for:))
        try store.deleteSession(session, reason: "wrong flat")
        payloads += try store.outbox().compactMap(MQTTPayloads.message(for:))
        let activity = SensorActivity(state: "recording", recording: true, microphoneProblem: false, session: 4)
        payloads.append(("state", MQTTPayloads.encode(SensorState(activity, footstepsLastHour: 12))))
        let idle = SensorActivity(state: "idle", recording: false, microphoneProblem: false, session: nil)
        payloads.append(("state", MQTTPayloads.encode(SensorState(idle, footstepsLastHour: 0))))
        #expect(
            Set(payloads.map(\.topic)) == ["event", "revision", "deletion", "session", "gap", "levels", "exceedance", "state"])
        let periods = try payloads.filter { $0.topic == "exceedance" }
            .map { try MQTTPayloads.decode(MQTTPayloads.Exceedance.self, from: $0.payload).period }
        #expect(periods == ["event", "event", "event", "hour"])

        let out = directory.appending("payloads")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for (index, payload) in payloads.enumerated() {
            try Data(payload.payload).write(to: URL(fileURLWithPath: "\(out)/\(payload.topic)-\(index).json"))
        }
        let result = try Self.validate(out)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")

        // The validator does reject a payload that strays from its schema.
        let event = try #require(payloads.first { $0.topic == "event" })
        var object = try #require(try JSONSerialization.jsonObject(with: Data(event.payload)) as? [String: Any])
        object.removeValue(forKey: "hash")
        object["loudness"] = "very"
        let bad = directory.appending("bad")
        try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: "\(bad)/event-0.json"))
        let rejected = try Self.validate(bad)
        #expect(rejected.status == 1)
        #expect(rejected.stdout.contains("'hash' is a required property"))
        #expect(rejected.stdout.contains("loudness"))
    }
}
