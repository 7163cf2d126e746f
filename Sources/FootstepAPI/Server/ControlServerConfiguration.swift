import Foundation

/// How the control socket server listens and whom it lets in.
public struct ControlServerConfiguration: Sendable, Equatable {
    /// Path of the Unix socket (e.g. `/run/footstepd/control.sock`).
    public var socketPath: String
    /// Group whose members may read (status, events, levels, live streams); the socket's group.
    public var readGroup: String
    /// Group whose members may also change state (start/stop, edit, delete, reload, calibrate).
    public var adminGroup: String
    /// Loopback TCP port serving only `/metrics`; 0 = no TCP listener.
    public var metricsPort: Int
    /// Address of the metrics listener (loopback by default).
    public var metricsAddress: String
    /// Mode of the socket file once it is listening.
    public var socketMode: mode_t = 0o660
    /// Largest request body accepted; larger gets 413.
    public var maximumBodyBytes = 64 * 1024
    /// Largest single header and all headers together; larger gets 431 and the connection closes.
    public var maximumHeaderBytes = 16 * 1024
    /// Most headers in one request.
    public var maximumHeaderCount = 64
    /// Connections served at once, the share kept for administrators, and the most one reader may hold.
    public var connectionLimits = ConnectionLimits()
    /// Seconds to a request's first byte, to the end of its head, to the end of its body.
    public var timeouts = ConnectionTimeouts()
    /// Seconds a connection is kept between requests (kept alive, nothing in flight).
    public var idleTimeout: Double = 30
    /// Seconds a write to a live subscriber may stay blocked before the connection is closed.
    public var liveWriteTimeout: Double = 5
    /// The daemon's version, for `/v1/status` and metrics.
    public var version: String

    public init(
        socketPath: String, readGroup: String = "footstepd", adminGroup: String = "footstepd-admin",
        metricsPort: Int = 0, metricsAddress: String = "127.0.0.1", version: String = "dev"
    ) {
        self.socketPath = socketPath
        self.readGroup = readGroup
        self.adminGroup = adminGroup
        self.metricsPort = metricsPort
        self.metricsAddress = metricsAddress
        self.version = version
    }
}
