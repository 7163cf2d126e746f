import Foundation

/// A minimal blocking HTTP/1.1 client on a Unix socket for the API benchmark:
/// one keep-alive connection, `Content-Length` bodies, and chunked live streams
/// cut into lines. No Swift concurrency, so timings measure the server.
final class UnixHTTPProbe {
    private let descriptor: Int32
    private var pending: [UInt8] = []

    init(path: String) throws {
        descriptor = try connectUnixSocket(path: path)
    }

    deinit { close(descriptor) }

    /// Sends `GET path` and reads the whole response; returns status and body size.
    func get(_ path: String) throws -> (status: Int, bytes: Int) {
        let (status, body) = try fetch(path, keepBody: false)
        return (status, body.count)
    }

    /// Sends `GET path` and returns its status and body.
    func fetch(_ path: String, keepBody: Bool = true) throws -> (status: Int, body: Data) {
        try send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = try readHead()
        let length = head.headers["content-length"].flatMap(Int.init) ?? 0
        while pending.count < length { try fill() }
        let body = keepBody ? Data(pending[..<length]) : Data(count: length)
        pending.removeFirst(length)
        return (head.status, body)
    }

    /// Sends `GET path` for a chunked stream and calls `line` with each line as it arrives
    /// until it returns false.
    func stream(_ path: String, line: (Data) -> Bool) throws {
        try send("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let head = try readHead()
        guard head.status == 200 else { throw ProbeError("\(path) answered \(head.status)") }
        var body: [UInt8] = []
        while true {
            while let end = index(of: [13, 10]) {
                guard let size = Int(String(decoding: pending[..<end], as: UTF8.self), radix: 16) else {
                    throw ProbeError("bad chunk header")
                }
                if size == 0 { return }
                guard pending.count >= end + 2 + size + 2 else { break }
                body += pending[(end + 2)..<(end + 2 + size)]
                pending.removeFirst(end + 4 + size)
                while let newline = body.firstIndex(of: 0x0A) {
                    let text = Data(body[..<newline])
                    body.removeFirst(newline + 1)
                    if !text.isEmpty, !line(text) { return }
                }
            }
            try fill()
        }
    }

    private func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ProbeError("send failed") }
            offset += sent
        }
    }

    private func fill() throws {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { throw ProbeError("connection closed") }
        pending += buffer[0..<count]
    }

    private func index(of pattern: [UInt8]) -> Int? {
        guard pending.count >= pattern.count else { return nil }
        for index in 0...(pending.count - pattern.count) where pending[index] == pattern[0] && pending[index + 1] == pattern[1] {
            if pattern.count == 2 || Array(pending[index..<(index + pattern.count)]) == pattern { return index }
        }
        return nil
    }

    private func readHead() throws -> (status: Int, headers: [String: String]) {
        while true {
            if let end = index(of: [13, 10, 13, 10]) {
                let lines = String(decoding: pending[..<end], as: UTF8.self).components(separatedBy: "\r\n")
                pending.removeFirst(end + 4)
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return (Int(lines.first?.dropFirst(9).prefix(3) ?? "") ?? 0, headers)
            }
            try fill()
        }
    }
}

/// A connected AF_UNIX stream socket to `path`; `timeout` (seconds), when
/// given, bounds each send and receive.
func connectUnixSocket(path: String, timeout: Int? = nil) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw ProbeError("socket: \(String(cString: strerror(errno)))") }
    if let timeout {
        var value = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard result == 0 else {
        let error = errno
        close(descriptor)
        throw ProbeError("cannot connect to \(path): \(String(cString: strerror(error)))")
    }
    return descriptor
}

struct ProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
