import Foundation

/// Reads an HTTP/1.1 response with a chunked body from a raw socket and cuts
/// the body into newline-delimited lines (the live NDJSON streams).
struct ChunkedLines {
    private(set) var status: Int?
    private var buffer: [UInt8] = []
    private var headerDone = false
    private var body: [UInt8] = []
    private(set) var ended = false

    /// Feeds received bytes; returns the complete non-empty lines they finish.
    mutating func feed(_ bytes: [UInt8]) -> [Data] {
        buffer += bytes
        if !headerDone {
            guard let end = find([13, 10, 13, 10], in: buffer) else { return [] }
            let head = String(decoding: buffer[..<end], as: UTF8.self)
            status = Int(head.dropFirst(9).prefix(3))
            buffer.removeFirst(end + 4)
            headerDone = true
        }
        // Chunks: size CRLF data CRLF.
        while let lineEnd = find([13, 10], in: buffer) {
            guard let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) else { break }
            if size == 0 {
                ended = true
                buffer.removeAll()
                break
            }
            guard buffer.count >= lineEnd + 2 + size + 2 else { break }
            body += buffer[(lineEnd + 2)..<(lineEnd + 2 + size)]
            buffer.removeFirst(lineEnd + 2 + size + 2)
        }
        var lines: [Data] = []
        while let newline = body.firstIndex(of: 0x0A) {
            if newline > 0 { lines.append(Data(body[..<newline])) }
            body.removeFirst(newline + 1)
        }
        return lines
    }

    private func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for index in 0...(bytes.count - pattern.count) where Array(bytes[index..<(index + pattern.count)]) == pattern {
            return index
        }
        return nil
    }
}

extension RawSocket {
    /// Opens a live route and reads its lines until `enough` returns true or `timeout` passes.
    static func readLive(path: String, route: String, timeout: Double, enough: ([Data]) -> Bool) throws -> (status: Int?, lines: [Data]) {
        let connection = try RawSocket(path: path, timeout: 0.5)
        connection.send("GET \(route) HTTP/1.1\r\nHost: localhost\r\n\r\n")
        var reader = ChunkedLines()
        var lines: [Data] = []
        let deadline = ContinuousClock.now + .seconds(timeout)
        var buffer = [UInt8](repeating: 0, count: 16384)
        while ContinuousClock.now < deadline, !reader.ended, !enough(lines) {
            let count = recv(connection.descriptor, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count < 0 { continue }
            lines += reader.feed(Array(buffer[0..<count]))
            if let status = reader.status, status != 200 { break }
        }
        return (reader.status, lines)
    }
}
