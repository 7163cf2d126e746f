import Foundation
import Synchronization

/// A TCP forwarder on 127.0.0.1 to a local port, whose "network" a test can cut:
/// while cut, every byte either way is silently dropped and new connections are
/// accepted but get nothing through, as when a cable is pulled or a router drops
/// packets (no reset, no FIN: the client finds out only by its own timeouts).
/// ``restore()`` forwards again and resets the connections that were cut, as their
/// TCP sessions would have timed out.
public final class TCPProxy: Sendable {
    /// The port clients connect to.
    public let port: Int
    private let target: Int
    private let listener: Int32
    private let state = Mutex<(cut: Bool, stopped: Bool, connections: [Int32])>((false, false, []))

    /// Listens on a free port of 127.0.0.1 and forwards to `127.0.0.1:targetPort`.
    public init(to targetPort: Int) throws {
        target = targetPort
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Subprocess.LaunchError(description: "socket: errno \(errno)") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw Subprocess.LaunchError(description: "bind/listen on 127.0.0.1: errno \(errno)")
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// Drops everything from now on, both ways, on every connection, old and new.
    public func cut() { state.withLock { $0.cut = true } }

    /// Forwards again; the connections that lived through the cut are reset.
    public func restore() {
        let stale = state.withLock { state in
            state.cut = false
            defer { state.connections = [] }
            return state.connections
        }
        for descriptor in stale { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Stops listening and resets every connection.
    public func stop() {
        let (wasStopped, open) = state.withLock { state in
            defer { state.stopped = true; state.connections = [] }
            return (state.stopped, state.connections)
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                // The broker is down: the client is refused at once, as it would be without the proxy.
                close(upstream)
                close(client)
                continue
            }
            let registered = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections += [client, upstream]
                return true
            }
            guard registered else {
                close(upstream)
                close(client)
                return
            }
            let ends = Atomic<Int>(0)
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread { [self] in
                    pump(from: from, to: to)
                    shutdown(from, Int32(SHUT_RDWR))
                    shutdown(to, Int32(SHUT_RDWR))
                    // The second pump to end closes both.
                    if ends.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                        close(client)
                        close(upstream)
                    }
                }.start()
            }
        }
    }

    private func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            if state.withLock({ $0.cut }) { continue }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { write(to, $0.baseAddress! + sent, count - sent) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                sent += written
            }
        }
    }
}
