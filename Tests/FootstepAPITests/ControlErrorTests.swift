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

    @Test func malformedRequestsGetJSONErrorsNamingTheProblem() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        try await daemon.waitForEvents(1)
        let sessionId = try #require(daemon.daemon.status.sessionId)

        // Unknown route and wrong method.
        let unknown = try await daemon.curl("GET", "/v1/nothing")
        #expect(unknown.status == 404)
        #expect(try Self.error(unknown).code == "not_found")
        let wrongMethod = try await daemon.curl("DELETE", "/v1/status", extra: ["-D", "-"])
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.text.contains("GET"))
        #expect(try await daemon.curl("PUT", "/v1/sessions/1").status == 405)
        #expect(try await daemon.curl("GET", "/v1/recording/start").status == 405)

        // Bad query values name the parameter.
        for (query, parameter) in [
            ("limit=abc", "limit"), ("limit=0", "limit"), ("limit=100000", "limit"), ("type=dancing", "type"),
            ("kind=x", "kind"), ("from=yesterday", "from"), ("min_confidence=2", "min_confidence"),
            ("cursor=zzz", "cursor"), ("session=-1", "session"), ("colour=red", "colour"),
            ("from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z", "to"),
        ] {
            let response = try await daemon.curl("GET", "/v1/events?\(query)")
            #expect(response.status == 400, "\(query)")
            let detail = try Self.error(response)
            #expect(detail.code == "bad_parameter")
            #expect(detail.message.contains("'\(parameter)'"), "\(query): \(detail.message)")
        }
        // Cursors whose arithmetic used to trap the daemon (SIGILL), on every paged route: a 400, and it lives.
        for route in ["/v1/events", "/v1/levels", "/v1/bouts"] {
            for cursor in ["9223372036854775807.1", "-9223372036854775808.1", "253402300800000.1", "-1.1", "1.9223372036854775808"] {
                let response = try await daemon.curl("GET", "\(route)?cursor=\(cursor)")
                #expect(response.status == 400, "\(route)?cursor=\(cursor)")
                #expect(try Self.error(response).message.contains("'cursor'"), "\(route)?cursor=\(cursor)")
            }
        }
        #expect(try await daemon.curl("GET", "/v1/status").status == 200, "alive after the cursors")
        #expect(try await daemon.curl("GET", "/v1/levels?to=soon").status == 400)
        #expect(try await daemon.curl("GET", "/v1/bouts?limit=-3").status == 400)
        #expect(try await daemon.curl("GET", "/v1/events/abc").status == 400)

        // Missing resources.
        #expect(try await daemon.curl("GET", "/v1/sessions/999999").status == 404)
        #expect(try await daemon.curl("GET", "/v1/events/999999").status == 404)
        #expect(try await daemon.curl("GET", "/v1/events/999999/clip").status == 404)
        #expect(try await daemon.curl("PATCH", "/v1/events/999999", body: #"{"notes":"x"}"#).status == 404)
        #expect(try await daemon.curl("DELETE", "/v1/sessions/999999").status == 404)

        // Bodies: not JSON, wrong shape, too large, control characters.
        let notJSON = try await daemon.curl("PATCH", "/v1/sessions/\(sessionId)", body: "{title")
        #expect(notJSON.status == 400)
        #expect(try Self.error(notJSON).code == "bad_body")
        #expect(try await daemon.curl("PATCH", "/v1/sessions/\(sessionId)", body: "{}").status == 400)
        #expect(try await daemon.curl("PATCH", "/v1/sessions/\(sessionId)", body: #"{"title":5}"#).status == 400)
        let missing = try await daemon.curl("PATCH", "/v1/events/1", body: #"{"note":"typo"}"#)
        #expect(missing.status == 400)
        #expect(try Self.error(missing).message.contains("notes"))
        let huge = "{\"notes\":\"" + String(repeating: "a", count: 200_000) + "\"}"
        let tooLarge = try await daemon.curl("PATCH", "/v1/events/1", body: huge)
        #expect(tooLarge.status == 413)
        #expect(try Self.error(tooLarge).code == "body_too_large")
        #expect(try await daemon.curl("PATCH", "/v1/sessions/\(sessionId)", body: #"{"title":"a\u0007b"}"#).status == 400)
        #expect(try await daemon.curl("POST", "/v1/calibration", body: #"{"offset_db":"loud","method":"x"}"#).status == 400)
        #expect(try await daemon.curl("POST", "/v1/calibration", body: #"{"offset_db":500,"method":"x"}"#).status == 400)
        #expect(try await daemon.curl("POST", "/v1/calibration", body: #"{"offset_db":90,"method":" "}"#).status == 400)

        // Reload without a configuration file.
        let reload = try await daemon.curl("POST", "/v1/config/reload")
        #expect(reload.status == 409)
        #expect(try Self.error(reload).message.contains("no --config"))

        // The daemon still serves.
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
        for path in try daemon.database.audioFiles(session: sessionId).map(\.path) + [event.clipPath].compactMap({ $0 }) {
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
