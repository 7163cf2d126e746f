import Foundation

/// A blocking AF_UNIX stream client for sending arbitrary bytes (hostile-input
/// and slow-subscriber tests).
final class RawSocket {
    let descriptor: Int32

    /// Connects to `path`; `timeout` bounds every send and receive.
    init(path: String, timeout: Double = 2) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw RawSocketError.system("socket", errno) }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw RawSocketError.pathTooLong(path)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            close(descriptor)
            throw RawSocketError.system("connect", error)
        }
    }

    deinit { close(descriptor) }

    /// Sends all of `bytes`; returns false when the peer closed or the send timed out.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the peer closes, `limit` bytes arrived, or a receive times out.
    func receive(limit: Int = 1 << 20) -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while data.count < limit {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// Reads everything until the peer closes (true) or a receive times out
    /// (false); `tail` is the last (at most 16) bytes received.
    func drain(limit: Int = 64 << 20) -> (bytes: Int, closed: Bool, tail: [UInt8]) {
        var total = 0
        var tail: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while total < limit {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            if count == 0 { return (total, true, tail) }
            if count < 0 { return (total, false, tail) }
            total += count
            tail = Array((tail + buffer[0..<count]).suffix(16))
        }
        return (total, false, tail)
    }

    /// The status code of the first HTTP response in `bytes`, if any.
    static func status(of bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }
}

enum RawSocketError: Error, CustomStringConvertible {
    case system(String, Int32)
    case pathTooLong(String)

    var description: String {
        switch self {
        case let .system(call, code): "\(call): \(String(cString: strerror(code)))"
        case let .pathTooLong(path): "socket path too long: \(path)"
        }
    }
}
