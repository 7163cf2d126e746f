import FootstepAPI
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import GRDB
import Synchronization
import Testing

/// Malformed, oversized, truncated and slow requests and random bytes over raw
/// sockets: the daemon answers each with a 4xx or a closed connection, keeps
/// capturing, and afterwards still answers with every event intact.
@Suite("Control socket under hostile input", .serialized)
struct ControlHostileInputTests {
    /// Runs `body(worker)` on `count` plain threads (blocking socket I/O must not
    /// occupy Swift concurrency's few threads, which the daemon needs).
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Mutex(count)
            for worker in 0..<count {
                let thread = Thread {
                    body(worker)
                    if remaining.withLock({ $0 -= 1; return $0 }) == 0 { continuation.resume() }
                }
                thread.start()
            }
        }
    }

    /// One connection's worth of hostile bytes; `requests` is how many requests it carries.
    static func hostilePayload(_ index: Int, random: inout SeededRandom) -> (bytes: [UInt8], requests: Int) {
        func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        let valid = Array("GET /v1/status HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        switch index % 10 {
        case 0:  // random bytes
            return (randomBytes(16 + Int(random.next() % 2000)), 1)
        case 1:  // a valid request cut anywhere
            return (Array(valid.prefix(Int(random.next() % UInt64(valid.count - 1)))), 1)
        case 2:  // an oversized header
            return (Array("GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n".utf8), 1)
        case 3:  // an oversized URI
            return (Array("GET /v1/events?type=\(String(repeating: "%41", count: 20_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 1)
        case 4:  // an oversized body (more than the 64 KiB limit)
            let body = String(repeating: "x", count: 100_000)
            return (Array("PATCH /v1/events/1 HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8), 1)
        case 5:  // broken chunked encoding
            return (Array("PATCH /v1/events/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n".utf8), 1)
        case 6:  // too many headers
            let headers = (0..<300).map { "X-H\($0): v\r\n" }.joined()
            return (Array("GET /v1/status HTTP/1.1\r\nHost: x\r\n\(headers)\r\n".utf8), 1)
        case 7:  // garbage request line and a NUL in the path
            return (Array("FOO\u{0}BAR /v1/\u{0}status HTTP/9.9\r\n\r\n".utf8), 1)
        default:  // 20 pipelined, well-formed requests with bad values, unknown routes, wrong methods, bad JSON
            let bad = [
                "GET /v1/events?limit=abc", "GET /v1/events?type=\(random.next())", "GET /v1/nowhere/\(random.next())",
                "DELETE /v1/status", "GET /v1/events/-\(random.next() % 100)", "GET /v1/levels?from=\(random.next())",
                "GET /v1/sessions/99999999", "GET /v1/bouts?cursor=%FF%FE",
            ]
            var text = ""
            for request in 0..<20 {
                if request % 5 == 4 {
                    let body = String(decoding: randomBytes(40).map { $0 % 94 + 32 }, as: UTF8.self)
                    text += "PATCH /v1/sessions/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                } else {
                    text += "\(bad[Int(random.next() % UInt64(bad.count))]) HTTP/1.1\r\nHost: x\r\n"
                        + (request == 19 ? "Connection: close\r\n" : "") + "\r\n"
                }
            }
            return (Array(text.utf8), 20)
        }
    }

    @Test func tenThousandHostileRequestsLeaveTheDaemonServingAndTheEvidenceIntact() async throws {
        let daemon = try APITestDaemon(server: {
            $0.idleTimeout = 1.5
            $0.timeouts = ConnectionTimeouts(firstByte: 1.5, head: 1.5, body: 1)
        })
        try await daemon.start()
        try await daemon.waitForEvents(1)
        let socketPath = daemon.socketPath
        let eventsBefore = daemon.daemon.status.storedEvents

        let sent = Atomic<Int>(0)
        let responses = Mutex<[Int: Int]>([:])
        let failures = Mutex<[String]>([])
        let clock = ContinuousClock()
        let started = clock.now
        let workers = 4
        let connectionsPerWorker = 600
        await Self.onThreads(workers + 1) { worker in
            if worker == workers {
                // Slow clients: a head trickled byte by byte, and a body trickled after its head.
                let slowHead = Array("GET /v1/status HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".utf8)
                for round in 0..<3 {
                    guard let connection = try? RawSocket(path: socketPath, timeout: 4) else { continue }
                    let begin = ContinuousClock.now
                    var closedByServer = false
                    let bytes = round == 2
                        ? Array("PATCH /v1/events/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n".utf8) + Array(repeating: 0x61, count: 100)
                        : slowHead + Array(repeating: 0x61, count: 100)
                    let headLength = round == 2 ? bytes.count - 100 : 0
                    if headLength > 0 { connection.send(Array(bytes.prefix(headLength))) }
                    for byte in bytes.dropFirst(headLength) {
                        if !connection.send([byte]) { closedByServer = true; break }
                        usleep(50_000)
                        if ContinuousClock.now - begin > .seconds(4) { break }
                    }
                    if !closedByServer { closedByServer = connection.receive(limit: 4096).count >= 0 && ContinuousClock.now - begin < .seconds(4.5) }
                    sent.add(1, ordering: .relaxed)
                    if !closedByServer || ContinuousClock.now - begin > .seconds(4) {
                        failures.withLock { $0.append("slow client \(round) was not cut off") }
                    }
                }
                return
            }
            var random = SeededRandom(seed: UInt64(worker + 1))
            for index in 0..<connectionsPerWorker {
                let (payload, requests) = Self.hostilePayload(index, random: &random)
                guard let connection = try? RawSocket(path: socketPath, timeout: 3) else {
                    failures.withLock { $0.append("connect failed") }
                    continue
                }
                connection.send(payload)
                shutdown(connection.descriptor, Int32(SHUT_WR))
                let reply = connection.receive(limit: 1 << 20)
                sent.add(requests, ordering: .relaxed)
                let status = RawSocket.status(of: reply) ?? 0
                responses.withLock { $0[status, default: 0] += 1 }
                if status >= 500 { failures.withLock { $0.append("\(status) for payload kind \(index % 10)") } }
            }
        }
        let elapsed = clock.now - started

        let total = sent.load(ordering: .relaxed)
        #expect(total >= 10_000)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        let seen = responses.withLock { $0 }
        #expect(seen.keys.allSatisfy { $0 == 0 || (400..<500).contains($0) }, "\(seen)")
        print("hostile input: \(total) requests in \(elapsed), first statuses \(seen.sorted { $0.key < $1.key })")

        // Still serving, still capturing, nothing lost.
        let status = try await Curl.request("GET", "/v1/status", socket: socketPath)
        #expect(status.status == 200)
        #expect(try status.decode(StatusResponse.self).state == "recording")
        #expect(await waitUntil(10) { daemon.daemon.status.storedEvents > eventsBefore })
        let snapshot = daemon.daemon.status
        #expect(snapshot.droppedPeriods == 0)
        try await daemon.stop()
        let database = try FootstepDatabase.open(path: "\(daemon.stateDirectory)/footstepd.db")
        #expect(try database.verifyChain().isIntact)
        #expect(try database.events(EventFilter(limit: 10_000)).items.count == daemon.daemon.status.storedEvents)
        #expect(try await database.reader.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }
}
