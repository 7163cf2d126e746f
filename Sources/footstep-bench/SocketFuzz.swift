import Foundation
import Synchronization

/// `footstep-bench fuzz --socket PATH [--requests N] [--seed S] [--workers W] [--keep-recording] [--json]`
///
/// Sends N hostile requests (``FuzzRequests``) over every route to a running
/// daemon, 16 pipelined per connection (live streams one per connection, cut
/// after their head), from W threads, and counts the answers by status.
/// `--keep-recording` leaves out the routes that stop, pause or reconfigure
/// recording. `--list-routes` prints the routes it covers. Exits 1 when any
/// answer is a 5xx, a connection is refused, or an answer never comes.
enum SocketFuzz {
    struct Report: Codable {
        var requests = 0
        var answered = 0
        var statuses: [String: Int] = [:]
        var serverErrors = 0
        var connectFailures = 0
        var stalledConnections = 0
        var seconds = 0.0

        enum CodingKeys: String, CodingKey {
            case requests, answered, statuses, seconds
            case serverErrors = "server_errors"
            case connectFailures = "connect_failures"
            case stalledConnections = "stalled_connections"
        }

        mutating func merge(_ other: Report) {
            requests += other.requests
            answered += other.answered
            serverErrors += other.serverErrors
            connectFailures += other.connectFailures
            stalledConnections += other.stalledConnections
            for (status, count) in other.statuses { statuses[status, default: 0] += count }
        }
    }

    static let pipelined = 16

    struct Options {
        var socketPath = ""
        var total = 50_000
        var seed: UInt64 = 1
        var workers = 4
        var keepRecording = false
        var json = false
        var listRoutes = false

        init(_ arguments: [String]) throws {
            var iterator = arguments.makeIterator()
            var socketPath: String?
            while let argument = iterator.next() {
                switch argument {
                case "--socket": socketPath = iterator.next()
                case "--requests": total = iterator.next().flatMap(Int.init) ?? total
                case "--seed": seed = iterator.next().flatMap(UInt64.init) ?? seed
                case "--workers": workers = max(1, iterator.next().flatMap(Int.init) ?? workers)
                case "--keep-recording": keepRecording = true
                case "--json": json = true
                case "--list-routes": listRoutes = true
                default:
                    throw ProbeError(
                        "unknown argument \(argument); usage: footstep-bench fuzz --socket PATH [--requests N] [--seed S] [--workers W] [--keep-recording] [--json] | --list-routes")
                }
            }
            guard let socketPath else {
                if listRoutes { return }
                throw ProbeError("--socket PATH is required")
            }
            self.socketPath = socketPath
        }
    }

    static func run(arguments: [String]) throws {
        let options = try Options(arguments)
        if options.listRoutes {
            for route in FuzzRequests.routes { print("\(route.method) \(route.path)") }
            return
        }
        let routes = FuzzRequests.routes.filter { route in
            !(options.keepRecording && (route.path.hasPrefix("/v1/recording/") || route.path == "/v1/config/reload"))
        }
        let (socketPath, seed, total, workers) = (options.socketPath, options.seed, options.total, options.workers)

        let started = ContinuousClock.now
        let reports = Mutex<[Report]>([])
        let finished = DispatchSemaphore(value: 0)
        for worker in 0..<workers {
            Thread {
                var generator = FuzzRequests(seed: seed &* 1_000_003 &+ UInt64(worker))
                let quota = total / workers + (worker < total % workers ? 1 : 0)
                let report = fuzz(socketPath: socketPath, count: quota, routes: routes, generator: &generator)
                reports.withLock { $0.append(report) }
                finished.signal()
            }.start()
        }
        for _ in 0..<workers { finished.wait() }
        var report = Report()
        reports.withLock { $0 }.forEach { report.merge($0) }
        let elapsed = ContinuousClock.now - started
        report.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            let statuses = report.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            print(String(
                format: "fuzz: %d requests in %.1f s (%.0f/s), %d answered (%@); 5xx %d, refused connections %d, stalled %d",
                report.requests, report.seconds, Double(report.requests) / max(report.seconds, 1e-9), report.answered,
                statuses, report.serverErrors, report.connectFailures, report.stalledConnections))
        }
        if report.serverErrors > 0 || report.connectFailures > 0 || report.stalledConnections > 0 { exit(1) }
    }

    /// One worker: `count` requests in pipelined batches.
    static func fuzz(
        socketPath: String, count: Int, routes: [(method: String, path: String)], generator: inout FuzzRequests
    ) -> Report {
        var report = Report()
        var sent = 0
        while sent < count {
            var batch: [UInt8] = []
            var inBatch = 0
            var live = false
            while inBatch < pipelined && sent + inBatch < count {
                let request = generator.next(routes: routes)
                let isLive = request.route.path.hasSuffix("/live")
                if isLive && inBatch > 0 { break }
                batch += request.bytes
                inBatch += 1
                if isLive {
                    live = true
                    break
                }
            }
            sent += inBatch
            report.requests += inBatch
            guard let connection = try? FuzzConnection(path: socketPath) else {
                report.connectFailures += 1
                continue
            }
            connection.send(batch)
            let (statuses, stalled) = live ? connection.readFirstHead() : connection.readResponses()
            if stalled { report.stalledConnections += 1 }
            report.answered += statuses.count
            for status in statuses {
                report.statuses["\(status)", default: 0] += 1
                if status >= 500 { report.serverErrors += 1 }
            }
        }
        return report
    }
}

/// A blocking Unix-socket connection that reads pipelined HTTP/1.1 responses
/// (`Content-Length` or chunked) until the server closes it.
final class FuzzConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    init(path: String) throws {
        descriptor = try connectUnixSocket(path: path, timeout: 10)
    }

    deinit { close(descriptor) }

    /// Sends what it can; the server may close early (a 400 ends the connection).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// The statuses of every response until the server closes; `stalled` when a read timed out first.
    func readResponses() -> (statuses: [Int], stalled: Bool) {
        var statuses: [Int] = []
        while true {
            guard let head = readHead() else { return (statuses, !closed) }
            statuses.append(head.status)
            if head.chunked {
                guard skipChunks() else { return (statuses, !closed) }
            } else {
                guard fill(to: head.length) else { return (statuses, !closed) }
                buffer.removeFirst(head.length)
            }
        }
    }

    /// The status of the first response's head (a live stream never ends).
    func readFirstHead() -> (statuses: [Int], stalled: Bool) {
        guard let head = readHead() else { return ([], !closed) }
        return ([head.status], false)
    }

    private func readHead() -> (status: Int, length: Int, chunked: Bool)? {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let lines = text.components(separatedBy: "\r\n")
                let status = lines.first.flatMap { Int($0.dropFirst(9).prefix(3)) } ?? 0
                var length = 0
                var chunked = false
                for line in lines.dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                    guard parts.count == 2 else { continue }
                    if parts[0] == "content-length" { length = Int(parts[1]) ?? 0 }
                    if parts[0] == "transfer-encoding" && parts[1].contains("chunked") { chunked = true }
                }
                return (status, length, chunked)
            }
            guard read() else { return nil }
        }
    }

    private func skipChunks() -> Bool {
        while true {
            while find([13, 10]) == nil { guard read() else { return false } }
            let end = find([13, 10])!
            let size = Int(String(decoding: buffer[..<end], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            buffer.removeFirst(end + 2)
            guard fill(to: size + 2) else { return false }
            buffer.removeFirst(size + 2)
            if size == 0 { return true }
        }
    }

    private func fill(to count: Int) -> Bool {
        while buffer.count < count { guard read() else { return false } }
        return true
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        return (0...(buffer.count - pattern.count)).first { buffer[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }

    /// Reads more; false at the server's close (sets `closed`) or a timeout.
    private func read() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(descriptor, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            if n == 0 { closed = true }
            if n <= 0 {
                if n < 0 && errno == ECONNRESET { closed = true }
                return false
            }
            buffer += chunk[..<n]
            return true
        }
    }
}
