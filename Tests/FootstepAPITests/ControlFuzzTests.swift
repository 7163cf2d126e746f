@testable import FootstepAPI
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// `footstep-bench fuzz` (hostile requests over every route: ids, query
/// parameters and JSON bodies at numeric extremes, NaN, huge and negative
/// values, broken encodings) against a daemon on its real socket. CI runs a few
/// thousand; `make fuzz` runs 50,000 against the release daemon and watches its
/// memory (scripts/fuzz-socket.py).
@Suite("Control socket fuzzing", .serialized)
struct ControlFuzzTests {
    struct FuzzReport: Decodable {
        var requests: Int
        var answered: Int
        var statuses: [String: Int]
        var serverErrors: Int
        var connectFailures: Int
        var stalledConnections: Int
    }

    static func fuzz(_ socketPath: String, requests: Int, seed: Int, extra: [String] = [], asNobody: Bool = false) async throws
        -> FuzzReport
    {
        let command = [BuiltProduct.path("footstep-bench"), "fuzz", "--socket", socketPath, "--requests", "\(requests)",
            "--seed", "\(seed)", "--json"] + extra
        let argv = asNobody
            ? ["/usr/bin/setpriv", "--reuid=\(Curl.nobody)", "--regid=\(Curl.nobody)", "--clear-groups"] + command
            : command
        let output = try await Curl.spawnOffPool(argv)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try #require(
            try? decoder.decode(FuzzReport.self, from: output), "footstep-bench said: \(String(decoding: output, as: UTF8.self))")
    }

    @Test func theFuzzerCoversEveryRouteTheServerHas() throws {
        let daemon = try APITestDaemon()
        let served = Set(daemon.control.allRoutes.map { "\($0.method.rawValue) \($0.path)" })
        let run = try BuiltProduct.run("footstep-bench", ["fuzz", "--list-routes"])
        #expect(run.status == 0)
        #expect(Set(run.stdout.split(separator: "\n").map(String.init)) == served)
    }

    @Test func fourThousandHostileRequestsFromRootGetNo5xxAndTheDaemonKeepsRecording() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        try await daemon.waitForEvents(1)
        let before = daemon.daemon.status.storedEvents

        let report = try await Self.fuzz(daemon.socketPath, requests: 4000, seed: 11, extra: ["--keep-recording"])
        print("fuzz: \(report.requests) requests, \(report.answered) answered, \(report.statuses.sorted { $0.key < $1.key })")
        #expect(report.requests == 4000)
        #expect(report.serverErrors == 0 && report.connectFailures == 0 && report.stalledConnections == 0)
        #expect(report.statuses.keys.allSatisfy { $0.hasPrefix("2") || $0.hasPrefix("4") }, "\(report.statuses)")
        // Most requests are answered (a malformed one ends its connection and the requests pipelined after it).
        #expect(report.answered > 2000)

        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        #expect(daemon.daemon.status.state == .recording)
        #expect(await waitUntil(15) { daemon.daemon.status.storedEvents > before })
        try await daemon.stop()
        let database = try FootstepDatabase.open(path: "\(daemon.stateDirectory)/footstepd.db")
        #expect(try database.verifyChain().isIntact)
    }

    /// The property: nothing an authorised reader sends changes whether the
    /// daemon records, or anything it stored.
    @Test(.enabled(if: Curl.canDropPrivileges, "needs root and setpriv"))
    func noRequestFromAReaderChangesTheDaemonOrItsEvidence() async throws {
        let daemon = try APITestDaemon(configure: { $0.socket.readGroup = "nogroup" })
        ControlAccessTests.openDirectories(daemon)
        try await daemon.start()
        try await daemon.waitForEvents(2)
        #expect(try await daemon.curl("POST", "/v1/recording/stop").status == 200)
        let database = daemon.database
        let sessions = try database.sessions()
        let events = try database.events(EventFilter(limit: 10_000)).items
        let diary = try database.diaryEntries(from: nil, to: nil)
        let calibrations = try database.calibrations()
        #expect(try await daemon.curl("POST", "/v1/recording/start").status == 200)
        #expect(await waitUntil(10) { daemon.daemon.status.state == .recording })

        let report = try await Self.fuzz(daemon.socketPath, requests: 3000, seed: 12, asNobody: true)
        print("reader fuzz: \(report.requests) requests, \(report.statuses.sorted { $0.key < $1.key })")
        #expect(report.serverErrors == 0 && report.connectFailures == 0 && report.stalledConnections == 0)
        #expect((report.statuses["403"] ?? 0) > 500)
        #expect(report.statuses.keys.allSatisfy { $0 == "200" || $0.hasPrefix("4") }, "\(report.statuses)")

        #expect(daemon.daemon.status.state == .recording)
        // What was stored before is unchanged (the new session's rows come on top).
        let sessionIDs = Set(sessions.map { $0.session.id })
        #expect(try database.sessions().filter { sessionIDs.contains($0.session.id) } == sessions)
        let eventIDs = Set(events.map(\.id))
        #expect(try database.events(EventFilter(limit: 10_000)).items.filter { eventIDs.contains($0.id) } == events)
        #expect(try database.diaryEntries(from: nil, to: nil) == diary)
        #expect(try database.calibrations() == calibrations)
        try await daemon.stop()
    }
}
