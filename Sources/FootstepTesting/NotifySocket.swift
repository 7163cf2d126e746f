import Foundation
import Glibc

/// A real AF_UNIX datagram socket standing in for systemd's notification
/// socket. Set `path` as `NOTIFY_SOCKET` and read what the process sent.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    private let descriptor: Int32

    public init(directory: String) throws {
        path = "\(directory)/notify.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw POSIXError(.ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// The next datagram, or nil after `timeout` seconds.
    public func receive(timeout: Double) -> String? {
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptorSet, 1, Int32(timeout * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// All datagrams until none arrives for `quiet` seconds.
    public func drain(quiet: Double = 0.2) -> [String] {
        var messages: [String] = []
        while let message = receive(timeout: quiet) { messages.append(message) }
        return messages
    }
}
