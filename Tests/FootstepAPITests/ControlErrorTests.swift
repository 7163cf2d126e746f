import FootstepAPI
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// Error statuses and JSON error bodies of the control socket.
@Suite("Control socket errors", .serialized, .enabled(if: Curl.isAvailable, "curl is not installed"))
struct ControlErrorTests {
    static func error(_ result: Curl.Result) throws -> ErrorResponse.Detail {
        try result.decode(ErrorResponse.self).error
    }

    /// Every malformed request is checked in process (`ControlRouterTests`); these
    /// few show the same JSON errors arrive through the real socket and the daemon.
    @Test func malformedRequestsGetJSONErrorsOverTheSocket() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        try await daemon.waitForEvents(1)
        let sessionId = try #require(daemon.daemon.status.sessionId)

        let unknown = try await daemon.curl("GET", "/v1/nothing")
        #expect(unknown.status == 404)
        #expect(try Self.error(unknown).code == "not_found")
        let wrongMethod = try await daemon.curl("DELETE", "/v1/status", extra: ["-D", "-"])
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.text.contains("GET"))
        let badLimit = try await daemon.curl("GET", "/v1/events?limit=abc")
        #expect(badLimit.status == 400)
        #expect(try Self.error(badLimit).message.contains("'limit'"))
        // A cursor whose arithmetic used to trap the daemon (SIGILL): a 400, and it lives.
        #expect(try await daemon.curl("GET", "/v1/events?cursor=9223372036854775807.1").status == 400)
        let huge = "{\"notes\":\"" + String(repeating: "a", count: 200_000) + "\"}"
        let tooLarge = try await daemon.curl("PATCH", "/v1/events/1", body: huge)
        #expect(tooLarge.status == 413)
        #expect(try Self.error(tooLarge).code == "body_too_large")
        // A session still recording is not deleted.
        #expect(try await daemon.curl("DELETE", "/v1/sessions/\(sessionId)").status == 409)
        let reload = try await daemon.curl("POST", "/v1/config/reload")
        #expect(reload.status == 409)
        #expect(try Self.error(reload).message.contains("no --config"))

        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        try await daemon.stop()
    }

    @Test func configurationReloadValidatesTheFile() async throws {
        let files = try TemporaryDirectory()
        let path = files.appending("footstepd.toml")
        try "[detection]\nthreshold = 1.5\n".write(toFile: path, atomically: true, encoding: .utf8)
        let daemon = try APITestDaemon(configurationPath: path)
        try await daemon.start()

        let good = try await daemon.curl("POST", "/v1/config/reload")
        #expect(good.status == 200)
        #expect(daemon.daemon.configuration.detection.threshold == 1.5)

        try "[detection]\nthreshold = \"high\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let bad = try await daemon.curl("POST", "/v1/config/reload")
        #expect(bad.status == 422)
        let detail = try Self.error(bad)
        #expect(detail.code == "invalid_configuration")
        #expect(detail.message.contains("detection.threshold"))
        #expect(daemon.daemon.configuration.detection.threshold == 1.5)
        try await daemon.stop()
    }

    @Test func clipIsUnavailableWhenNeitherClipNorAudioRemains() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        try await daemon.waitForEvents(1)
        let sessionId = try #require(daemon.daemon.status.sessionId)
        _ = try await daemon.curl("POST", "/v1/recording/stop")
        let event = try #require(try daemon.database.events(EventFilter(sessionId: sessionId)).items.first)
        #expect(event.clipPath != nil)
        for path in try daemon.database.audioFiles(session: sessionId).map(\.path) + [event.clipPath].compactMap({ $0 }).map(daemon.database.resolve) {
            try FileManager.default.removeItem(atPath: path)
        }
        let response = try await daemon.curl("GET", "/v1/events/\(event.id!)/clip")
        #expect(response.status == 404)
        #expect(try Self.error(response).code == "clip_unavailable")
        try await daemon.stop()
    }

    @Test func aSecondServerCannotStealTheSocketAndAStaleOneIsReplaced() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("control.sock")
        // A stale socket file left by a crash (bound, never unlinked).
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(stale)
        #expect(FileManager.default.fileExists(atPath: path))

        let daemon = try APITestDaemon(server: { $0.socketPath = path })
        try await daemon.start()
        #expect(try await Curl.request("GET", "/v1/status", socket: path).status == 200)

        let second = ControlServer(
            configuration: ControlServerConfiguration(socketPath: path),
            backend: DaemonControlBackend(daemon: daemon.daemon, logger: APITestDaemon.quietLogger),
            logger: APITestDaemon.quietLogger)
        await #expect(throws: ControlServerError.alreadyRunning(path: path)) { try await second.run() }
        #expect(try await Curl.request("GET", "/v1/status", socket: path).status == 200)
        try await daemon.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
