import FootstepClient
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// The socket client against a real footstepd on a real socket, and against
/// real sockets that misbehave (nobody listening, never answering, not HTTP).
@Suite("Control client", .serialized)
struct ControlClientTests {
    // MARK: - Without a daemon

    @Test func missingSocketSaysTheDaemonIsNotRunning() async throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let path = directory.appending("none.sock")
        let error = await #expect(throws: ControlClientError.self) { try await ControlClient(socketPath: path).status() }
        #expect(error == .notRunning(socketPath: path))
        #expect(error?.description == "footstepd is not running (no socket at \(path))")
        #expect(error?.exitCode == 69)
    }

    @Test func staleSocketFileSaysTheDaemonIsNotRunning() async throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let path = directory.appending("stale.sock")
        let listener = try RawUnixListener(path: path, listen: false)
        _ = listener
        let error = await #expect(throws: ControlClientError.self) { try await ControlClient(socketPath: path).status() }
        #expect(error == .notListening(socketPath: path))
        #expect(error?.description.hasPrefix("footstepd is not running: nothing listens on \(path)") == true)
        #expect(error?.exitCode == 69)
    }

    @Test func aRegularFileIsNotASocket() async throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let path = directory.appending("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let error = await #expect(throws: ControlClientError.self) { try await ControlClient(socketPath: path).status() }
        #expect(error == .notASocket(socketPath: path))
        #expect(error?.exitCode == 69)
    }

    @Test func aSilentServerTimesOut() async throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let path = directory.appending("mute.sock")
        let listener = try RawUnixListener(path: path)  // listens, never accepts: connect succeeds, no answer
        let start = ContinuousClock.now
        let error = await #expect(throws: ControlClientError.self) {
            try await ControlClient(socketPath: path, timeout: 0.5).status()
        }
        #expect(error == .timedOut(socketPath: path, seconds: 0.5))
        #expect(error?.exitCode == 75)
        #expect(ContinuousClock.now - start < .seconds(3))
        _ = listener
    }

    @Test func anAnswerThatIsNotHTTPIsMalformed() async throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let path = directory.appending("junk.sock")
        let listener = try RawUnixListener(path: path)
        let server = Thread { listener.answerOnce(Data("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8)) }
        server.start()
        let error = await #expect(throws: ControlClientError.self) {
            try await ControlClient(socketPath: path, timeout: 5).status()
        }
        if case .malformedResponse = error {} else { Issue.record("expected malformedResponse, got \(String(describing: error))") }
        #expect(error?.exitCode == 76)
    }

    @Test func jsonThatDoesNotMatchNamesTheMissingKey() async throws {
        let directory = try TemporaryDirectory(prefix: "fsctl")
        let path = directory.appending("odd.sock")
        let listener = try RawUnixListener(path: path)
        let body = #"{"state":"recording"}"#
        let response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let server = Thread { listener.answerOnce(Data(response.utf8)) }
        server.start()
        let error = await #expect(throws: ControlClientError.self) {
            try await ControlClient(socketPath: path, timeout: 5).status()
        }
        let description = error?.description ?? ""
        #expect(description.hasPrefix("malformed response from footstepd: expected StatusResponse: missing key '"), "\(description)")
    }

    @Test func requestTargetsAreEncoded() {
        let from = Date(timeIntervalSince1970: 1_738_360_800)
        let request = ControlRequest.events(.init(from: from, type: .heelStrike, minConfidence: 0.5, limit: 10, cursor: "17.3"))
        #expect(request.target == "/v1/events?from=2025-01-31T22%3A00%3A00.000Z&type=heel_strike&min_confidence=0.5&limit=10&cursor=17.3")
        #expect(ControlRequest.status.target == "/v1/status")
    }

    // MARK: - Against a real daemon

    @Test func readRoutesReturnWhatTheStoreHolds() async throws {
        try await APITestDaemon.with { daemon in
            try await daemon.waitForEvents(3)
            let client = ControlClient(socketPath: daemon.socketPath)

            let status = try await client.status()
            let database = daemon.database
            let stored = try #require(try database.sessions().last)
            #expect(status.state == "recording")
            #expect(status.session?.id == stored.session.id)

            let sessions = try await client.sessions()
            #expect(sessions.map(\.id) == (try database.sessions()).map { $0.session.id! })

            let page = try await client.events(.init(session: stored.session.id, limit: 2))
            #expect(page.items.count == 2)
            #expect(page.nextCursor != nil)
            let storedEvents = try database.events(EventFilter(sessionId: stored.session.id, limit: 2)).items
            #expect(page.items.map(\.id) == storedEvents.map { $0.id! })
            #expect(page.items.first?.hash == storedEvents.first?.hash)

            // Following cursors one event at a time gives the same events as one big page.
            let followed = try await client.allEvents(.init(session: stored.session.id), limit: 3, pageSize: 1)
            let oneBig = try await client.events(.init(session: stored.session.id, limit: 3))
            #expect(followed.items.count == 3)
            #expect(followed.items.map(\.id) == oneBig.items.map(\.id))

            let first = try #require(page.items.first)
            #expect(try await client.event(first.id) == first)

            let configuration = try await client.configuration()
            #expect(configuration["socket", "path"]?.text == daemon.socketPath)
            #expect(configuration["paths", "state_dir"]?.text == daemon.stateDirectory)

            let levels = try await client.levels(.init(session: stored.session.id))
            #expect(levels.items.allSatisfy { $0.sessionId == stored.session.id })
            let bouts = try await client.bouts(.init(session: stored.session.id))
            #expect(bouts.items.allSatisfy { $0.sessionId == stored.session.id && $0.steps > 0 })

            let metrics = try await client.metrics()
            #expect(metrics.contains("# TYPE"))
        }
    }

    @Test func notFoundIsAServerErrorWithTheServersMessage() async throws {
        try await APITestDaemon.with { daemon in
            let client = ControlClient(socketPath: daemon.socketPath)
            let error = await #expect(throws: ControlClientError.self) { try await client.event(987_654) }
            #expect(error?.status == 404)
            #expect(error?.exitCode == 66)
            #expect(error?.description.contains("987654") == true)
        }
    }

    @Test func editsAndClipsGoThroughToTheStore() async throws {
        try await APITestDaemon.with { daemon in
            try await daemon.waitForEvents(2)
            let client = ControlClient(socketPath: daemon.socketPath)
            let database = daemon.database
            let session = try #require(try database.sessions().last?.session)

            let renamed = try await client.updateSession(session.id!, title: "flat 3, bedroom")
            #expect(renamed.title == "flat 3, bedroom")
            #expect(try database.session(session.id!)?.session.title == "flat 3, bedroom")

            let event = try await daemon.firstEventWithClip()
            let noted = try await client.updateEvent(event.id!, notes: "woke me up")
            #expect(noted.notes == "woke me up")
            #expect(try database.event(event.id!)?.notes == "woke me up")

            // A clip is cut from the rolling audio (or the saved clip) and is real audio.
            let clip = try await client.clip(event.id!)
            #expect(clip.data.count > 1000)
            #expect(clip.data.starts(with: Array("fLaC".utf8)) || clip.data.starts(with: Array("RIFF".utf8)))
            #expect(["audio/flac", "audio/wav"].contains(clip.contentType))
        }
    }

    @Test func liveStreamsDeliverDecodedValues() async throws {
        try await APITestDaemon.with { daemon in
            let client = ControlClient(socketPath: daemon.socketPath)
            var readings: [LiveLevelReading] = []
            for try await reading in client.liveLevels() {
                readings.append(reading)
                if readings.count == 3 { break }
            }
            #expect(readings.count == 3)
            #expect(readings.allSatisfy { $0.laeqDB.isFinite && !$0.calibrated })
            #expect(zip(readings, readings.dropFirst()).allSatisfy { $0.time < $1.time })

            var iterator = client.liveEvents().makeAsyncIterator()
            let event = try await iterator.next()
            #expect(event?.id ?? 0 > 0)
            if let event { #expect(try daemon.database.event(event.id)?.hash == event.hash) }
        }
    }
}

/// A real AF_UNIX listening socket that never speaks HTTP: for the timeout
/// and malformed-response cases.
final class RawUnixListener: @unchecked Sendable {
    let descriptor: Int32

    init(path: String, listen shouldListen: Bool = true) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, !shouldListen || listen(descriptor, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
    }

    /// Accepts one connection, reads the request head, writes `data`, closes.
    func answerOnce(_ data: Data) {
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = read(connection, &buffer, buffer.count)
        _ = data.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
        close(connection)
    }

    deinit { close(descriptor) }
}
