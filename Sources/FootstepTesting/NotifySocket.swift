import Foundation
import Glibc

/// A real AF_UNIX datagram socket standing in for systemd's notification
/// socket. Set `path` as `NOTIFY_SOCKET` and read what the process sent.
///
/// A thread of its own receives every datagram as it arrives, as systemd
/// does. A datagram socket's queue holds only `net.unix.max_dgram_qlen`
/// messages (10 by default); a sender finding it full blocks in
/// `sd_notify`, and a daemon running in the test process would then stall
/// until the test read, which it does only once the daemon has stopped.
public final class NotifySocket: @unchecked Sendable {
    public let path: String
    private let descriptor: Int32
    private let inbox = Inbox()
    private let readerStopped = DispatchSemaphore(value: 0)

    /// What the reader thread received, and whether it should stop.
    private final class Inbox: @unchecked Sendable {
        let condition = NSCondition()
        var messages: [String] = []
        var next = 0
        var stopping = false
    }

    public init(directory: String) throws {
        path = "\(directory)/notify.sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw POSIXError(.ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            close(descriptor)
            throw error
        }
        let (socketDescriptor, inbox, stopped) = (descriptor, self.inbox, readerStopped)
        let reader = Thread { Self.receiveAll(descriptor: socketDescriptor, into: inbox, stopped: stopped) }
        reader.name = "notify-socket"
        reader.start()
    }

    deinit {
        inbox.condition.lock()
        inbox.stopping = true
        inbox.condition.unlock()
        // Wakes the reader's blocked recv, which then returns 0.
        shutdown(descriptor, Int32(SHUT_RDWR))
        readerStopped.wait()
        close(descriptor)
        unlink(path)
    }

    /// The reader thread: blocks in `recv` and puts every datagram into
    /// `inbox`, until `deinit` marks it stopping and shuts the socket down.
    private static func receiveAll(descriptor: Int32, into inbox: Inbox, stopped: DispatchSemaphore) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            inbox.condition.lock()
            if count > 0 {
                inbox.messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
                inbox.condition.broadcast()
            }
            let stopping = inbox.stopping
            inbox.condition.unlock()
            // recv returns 0 once the socket is shut down (or for an empty datagram), -1 on EINTR.
            if count <= 0 && stopping { break }
        }
        stopped.signal()
    }

    /// The next datagram, or nil after `timeout` seconds.
    public func receive(timeout: Double) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        inbox.condition.lock()
        defer { inbox.condition.unlock() }
        while inbox.next == inbox.messages.count {
            guard inbox.condition.wait(until: deadline) else { return nil }
        }
        inbox.next += 1
        return inbox.messages[inbox.next - 1]
    }

    /// All datagrams until none arrives for `quiet` seconds.
    public func drain(quiet: Double = 0.2) -> [String] {
        var messages: [String] = []
        while let message = receive(timeout: quiet) { messages.append(message) }
        return messages
    }
}
