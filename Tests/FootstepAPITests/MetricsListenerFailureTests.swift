import FootstepTesting
import Foundation
import Testing

/// The metrics listener is an extra: when its port is taken or its address
/// does not resolve, the control socket keeps serving (it used to go down for
/// the daemon's lifetime while READY=1 was still sent).
@Suite("Metrics listener failures", .serialized, .enabled(if: Curl.isAvailable, "curl is not installed"))
struct MetricsListenerFailureTests {
    /// A loopback TCP port held by this process until `close`.
    static func heldPort() throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestDaemonError("could not hold a loopback port") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test(arguments: ["taken port", "unresolvable address"])
    func theControlSocketServesWhenTheMetricsListenerCannotStart(case name: String) async throws {
        let held = try Self.heldPort()
        defer { close(held.descriptor) }
        let daemon = try APITestDaemon(server: { server in
            server.metricsPort = held.port
            if name == "unresolvable address" { server.metricsAddress = "no-such-host.invalid" }
        })
        try await daemon.start()
        #expect(await waitUntil(10) { daemon.control.metricsFailure != nil }, "the metrics listener failed")
        #expect(daemon.control.isListening)
        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        #expect(try await daemon.curl("GET", "/metrics").status == 200, "metrics stay on the socket")
        try await daemon.waitForEvents(1)
        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        try await daemon.stop()
    }
}
