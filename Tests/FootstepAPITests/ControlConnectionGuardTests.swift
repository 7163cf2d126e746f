@testable import FootstepAPI
import FootstepTesting
import Foundation
import Testing

/// The gate in front of the control socket's HTTP: admission at accept from
/// SO_PEERCRED, per-reader limits with a reserve for administrators, phase
/// deadlines, and 431 for oversized heads.
@Suite("Control socket connection guard")
struct ConnectionGuardUnitTests {
    @Test func timingPhasesArmTheirOwnDeadlines() {
        var state = ConnectionTimingState()
        #expect(state.accepted() == .firstByte)
        #expect(state.bytesArrived() == .head)
        #expect(state.bytesArrived() == .unchanged)
        #expect(state.headArrived() == .body)
        #expect(state.bytesArrived() == .unchanged)
        #expect(state.requestEnded() == .none)
        #expect(state.phase == .betweenRequests)
        // The next request on a kept-alive connection gets its own head deadline.
        #expect(state.bytesArrived() == .head)
        #expect(state.phase == .readingHead)
    }

    /// nobody (65534) is a reader through its primary group nogroup (65534);
    /// the same uid with another primary group is an outsider.
    static let policy = AccessPolicy(readGroup: "nogroup", adminGroup: "footstepd-test-none", daemonUID: 4242)
    static let reader = PeerCredentials(pid: 1, uid: 65534, gid: 65534)

    @Test func readersAreLimitedPerUserAndTogetherAndAdministratorsKeepTheirReserve() throws {
        let admission = ConnectionAdmission(policy: Self.policy, limits: ConnectionLimits(total: 6, readers: 4, perReader: 3))
        var tickets: [ConnectionAdmission.Ticket] = []
        for _ in 0..<3 {
            guard case let .admitted(ticket) = admission.admit(Self.reader) else { Issue.record("reader refused early"); return }
            tickets.append(ticket)
        }
        guard case let .refused(status, code, message) = admission.admit(Self.reader) else {
            Issue.record("a fourth connection of one reader was admitted")
            return
        }
        #expect(status == .serviceUnavailable && code == "too_many_connections")
        #expect(message.contains("uid 65534") && message.contains("at most 3"))

        // Another reader uid (its primary group is nogroup too) takes the last reader place.
        let other = PeerCredentials(pid: 2, uid: 60001, gid: 65534)
        guard case let .admitted(otherTicket) = admission.admit(other) else { Issue.record("second reader refused"); return }
        guard case .refused(.serviceUnavailable, _, let full) = admission.admit(other) else {
            Issue.record("readers took the administrators' reserve")
            return
        }
        #expect(full.contains("4 connections") && full.contains("2 more are kept for administrators"))

        // Root and the daemon's user are never held back by readers.
        for peer in [PeerCredentials(pid: 3, uid: 0, gid: 0), PeerCredentials(pid: 4, uid: 4242, gid: 4242)] {
            guard case let .admitted(ticket) = admission.admit(peer) else { Issue.record("\(peer) refused"); return }
            admission.release(ticket)
        }
        #expect(admission.held.readers == 4 && admission.held.privileged == 0)

        // Places come back when connections close.
        admission.release(tickets.removeLast())
        guard case .admitted = admission.admit(Self.reader) else { Issue.record("a released place was not given back"); return }
        admission.release(otherTicket)
        #expect(admission.held.perUID == [65534: 3])
    }

    @Test func aPeerThatMayNotReadIsRefusedAtAcceptWithTheGroupItNeeds() {
        let admission = ConnectionAdmission(policy: Self.policy, limits: ConnectionLimits())
        // A uid with no passwd entry has only the primary group it connected with.
        let outsider = PeerCredentials(pid: 1, uid: 54321, gid: 12345)
        guard case let .refused(status, code, message) = admission.admit(outsider) else {
            Issue.record("an outsider was admitted")
            return
        }
        #expect(status == .forbidden && code == "forbidden")
        #expect(message.contains("'nogroup'") && message.contains("usermod -aG nogroup") && message.contains("uid 54321"))
        #expect(admission.held.readers == 0)
    }
}

@Suite("Control socket connection guard, on the real socket", .serialized)
struct ConnectionGuardSocketTests {
    @Test func anOversizedHeadGets431AndTheSocketGoesOn() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start(waitForRecording: false)
        let connection = try RawSocket(path: daemon.socketPath, timeout: 5)
        let big = String(repeating: "a", count: 20 * 1024)
        connection.send("GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n")
        let reply = connection.receive()
        #expect(RawSocket.status(of: reply) == 431)
        #expect(String(decoding: reply, as: UTF8.self).contains("\"headers_too_large\""))
        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        try await daemon.stop()
    }

    @Test func silentAndTricklingConnectionsAreClosedAtTheirPhaseDeadlines() async throws {
        let daemon = try APITestDaemon(server: {
            $0.timeouts = ConnectionTimeouts(firstByte: 0.5, head: 1, body: 1)
        })
        try await daemon.start(waitForRecording: false)
        let clock = ContinuousClock()

        // Connected, nothing sent: closed at the first-byte deadline.
        let silent = try RawSocket(path: daemon.socketPath, timeout: 5)
        let silentStart = clock.now
        let silentEnd = silent.drain()
        let silentTime = clock.now - silentStart
        #expect(silentEnd.closed && silentEnd.bytes == 0)
        #expect(silentTime >= .milliseconds(400) && silentTime < .milliseconds(1500), "\(silentTime)")

        // A head trickled a byte every 100 ms (each byte resets an idle timer, not this one).
        let trickle = try RawSocket(path: daemon.socketPath, timeout: 5)
        let trickleStart = clock.now
        var cutOff: Duration?
        for byte in Array("GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) + Array(repeating: 0x61, count: 60) {
            if !trickle.send([byte]) {
                cutOff = clock.now - trickleStart
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let cut = try #require(cutOff, "a trickled head was never cut off")
        #expect(cut >= .milliseconds(900) && cut < .milliseconds(2500), "\(cut)")

        // A prompt request is untouched by the deadlines, and so is its kept-alive connection between requests.
        let prompt = try RawSocket(path: daemon.socketPath, timeout: 5)
        prompt.send("GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .milliseconds(1500))
        prompt.send("GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let replies = String(decoding: prompt.receive(), as: UTF8.self)
        #expect(replies.components(separatedBy: "HTTP/1.1 200").count == 3, "\(replies.prefix(300))")
        try await daemon.stop()
    }
}

/// 300 connections from one reader (nobody, through `setpriv`), half silent and
/// half trickling a head, while root asks for `/v1/status`.
@Suite(
    "Control socket under a reader's connection flood", .serialized,
    .enabled(
        if: Curl.canDropPrivileges && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
        "needs root, setpriv and python3"))
struct ConnectionFloodTests {
    /// Opens N connections at once (odd ones trickle a head, a byte every 0.4 s),
    /// watches them for HOLD seconds, and prints what became of them as JSON.
    static let flooder = #"""
        json, socket, sys, time = (__import__(name) for name in ("json", "socket", "sys", "time"))
        path, n, hold = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
        conns = []
        for i in range(n):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)  # blocking: a full backlog makes it wait, not fail
            s.setblocking(False)
            conns.append({"s": s, "slow": i % 2 == 1, "t0": time.monotonic(), "closed": None, "got": b"", "sent": 0})
        head = b"GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
        start = time.monotonic()
        last = 0.0
        while time.monotonic() - start < hold:
            trickle = time.monotonic() - last >= 0.4
            if trickle:
                last = time.monotonic()
            for c in conns:
                if c["closed"] is not None:
                    continue
                try:
                    data = c["s"].recv(65536)
                    if not data:
                        c["closed"] = time.monotonic() - c["t0"]
                        continue
                    c["got"] += data
                except BlockingIOError:
                    pass
                except OSError:
                    c["closed"] = time.monotonic() - c["t0"]
                    continue
                if c["slow"] and trickle and c["sent"] < len(head):
                    try:
                        c["s"].send(head[c["sent"]:c["sent"] + 1])
                        c["sent"] += 1
                    except OSError:
                        c["closed"] = time.monotonic() - c["t0"]
            time.sleep(0.02)
        refused = [c for c in conns if c["got"].startswith(b"HTTP/1.1 503")]
        admitted = [c for c in conns if not c["got"]]
        print(json.dumps({
            "refused": len(refused),
            "admitted": len(admitted),
            "other": len(conns) - len(refused) - len(admitted),
            "admitted_silent_closed": sorted(c["closed"] for c in admitted if not c["slow"] and c["closed"] is not None),
            "admitted_slow_closed": sorted(c["closed"] for c in admitted if c["slow"] and c["closed"] is not None),
            "open_at_end": sum(1 for c in conns if c["closed"] is None),
        }))
        """#

    struct FloodReport: Decodable {
        var refused: Int
        var admitted: Int
        var other: Int
        var admittedSilentClosed: [Double]
        var admittedSlowClosed: [Double]
        var openAtEnd: Int
    }

    /// Connects, listens 150 ms before sending a request head, then reads to
    /// the end; prints how many bytes came early and the status line.
    static let latecomer = #"""
        json, socket, sys = (__import__(name) for name in ("json", "socket", "sys"))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        s.settimeout(0.15)
        try:
            early = s.recv(4096)
        except socket.timeout:
            early = b""
        s.settimeout(3)
        s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        while True:
            data = s.recv(4096)
            if not data:
                break
            got += data
        print(json.dumps({"early": len(early), "status": got.split(b"\r\n", 1)[0].decode()}))
        """#

    /// An HTTP client takes a response that arrives before its request for a
    /// protocol error (NIO's decoder: unsolicited response), so a refused peer
    /// is answered when its request head has come, not at accept.
    @Test func aRefusedPeerIsAnsweredAfterItsRequestNotBefore() async throws {
        let daemon = try APITestDaemon()
        ControlAccessTests.openDirectories(daemon)
        try await daemon.start(waitForRecording: false)
        chmod(daemon.socketPath, 0o666)
        let output = try await Curl.spawnOffPool([
            "/usr/bin/setpriv", "--reuid=\(Curl.nobody)", "--regid=\(Curl.nobody)", "--clear-groups",
            "/usr/bin/python3", "-c", Self.latecomer, daemon.socketPath,
        ])
        struct Report: Decodable {
            var early: Int
            var status: String
        }
        let report = try #require(
            try? JSONDecoder().decode(Report.self, from: output), "the client said: \(String(decoding: output, as: UTF8.self))")
        #expect(report.early == 0, "\(report.early) bytes before the request")
        #expect(report.status == "HTTP/1.1 403 Forbidden")
        try await daemon.stop()
    }

    @Test func threeHundredConnectionsFromOneReaderLeaveRootsStatusUnderASecond() async throws {
        let daemon = try APITestDaemon(configure: { $0.socket.readGroup = "nogroup" })
        ControlAccessTests.openDirectories(daemon)
        try await daemon.start(waitForRecording: false)
        let socketPath = daemon.socketPath
        let limits = daemon.control.configuration.connectionLimits

        let flood = Task {
            try await Curl.spawnOffPool([
                "/usr/bin/setpriv", "--reuid=\(Curl.nobody)", "--regid=\(Curl.nobody)", "--clear-groups",
                "/usr/bin/python3", "-c", Self.flooder, socketPath, "300", "8",
            ])
        }
        try await Task.sleep(for: .milliseconds(500))
        var latencies: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0..<20 {
            let started = clock.now
            let response = try await Curl.request("GET", "/v1/status", socket: socketPath, maxTime: 5)
            latencies.append(clock.now - started)
            #expect(response.status == 200)
            try await Task.sleep(for: .milliseconds(300))
        }
        let output = try await flood.value
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let report = try #require(
            try? decoder.decode(FloodReport.self, from: output), "the flooder said: \(String(decoding: output, as: UTF8.self))")
        let slowest = latencies.max()!
        print("flood: \(report.refused) refused, \(report.admitted) admitted; root's /v1/status slowest \(slowest)")

        #expect(slowest < .seconds(1), "root's status took \(slowest) under the flood")
        #expect(report.other == 0)
        #expect(report.admitted <= limits.perReader, "\(report.admitted) connections of one reader admitted")
        #expect(report.refused >= 300 - limits.perReader)
        #expect(report.openAtEnd == 0)
        let timeouts = daemon.control.configuration.timeouts
        #expect(report.admittedSilentClosed.allSatisfy { $0 < timeouts.firstByte + 1 }, "\(report.admittedSilentClosed)")
        #expect(report.admittedSlowClosed.allSatisfy { $0 < timeouts.head + 1.5 }, "\(report.admittedSlowClosed)")
        // The reader itself is served again once its connections are gone.
        #expect(try await daemon.curl("GET", "/v1/status", asNobody: true).status == 200)
        try await daemon.stop()
    }
}
