import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The control socket: HTTP/1.1 + JSON on a Unix socket (and `/metrics` on an
/// optional loopback TCP port), as one service of the daemon's group.
///
/// `run()` takes the socket's lock (a second daemon fails with
/// ``ControlServerError/alreadyRunning(path:)`` instead of stealing the path),
/// removes a stale socket, listens, then restricts the socket to its mode and
/// read group. Connections pass ``GuardedHTTP1Channel`` (admission at accept,
/// phase deadlines, 431). It returns on graceful shutdown, removing the socket. The TCP
/// metrics listener is an extra: when it cannot start (its port taken, its
/// address unresolvable) the failure is logged and kept in ``metricsFailure``,
/// and the socket (which serves `/metrics` too) goes on.
public struct ControlServer: Service, CustomStringConvertible {
    public let configuration: ControlServerConfiguration
    private let backend: any ControlBackend
    private let logger: Logger
    private let policy: AccessPolicy
    private let metrics: DaemonMetrics
    private let state: ServerState
    private let onStarted: (@Sendable (_ listening: Bool) -> Void)?

    /// - Parameter onStarted: Called with true once the socket listens with its
    ///   final permissions, and with false when it cannot start (or stops on an error).
    public init(
        configuration: ControlServerConfiguration, backend: any ControlBackend, logger: Logger,
        onStarted: (@Sendable (_ listening: Bool) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.backend = backend
        self.logger = logger
        self.onStarted = onStarted
        self.policy = AccessPolicy(readGroup: configuration.readGroup, adminGroup: configuration.adminGroup)
        self.metrics = DaemonMetrics(version: configuration.version)
        self.state = ServerState()
    }

    public var description: String { "ControlServer(\(configuration.socketPath))" }

    /// True once the socket listens with its final permissions (until shutdown).
    public var isListening: Bool { state.listening.load(ordering: .acquiring) }
    /// The bound port of the TCP metrics listener once it listens.
    public var metricsPort: Int? { state.metricsPort.withLock { $0 } }
    /// Why the TCP metrics listener is not serving, once it failed.
    public var metricsFailure: String? { state.metricsFailure.withLock { $0 } }

    public func run() async throws {
        do {
            try await serve()
        } catch {
            onStarted?(false)
            logger.error("control socket not available: \(error)", metadata: ["socket.path": "\(configuration.socketPath)"])
            throw error
        }
    }

    private func serve() async throws {
        let socket = try SocketFile(path: configuration.socketPath, logger: logger)
        defer {
            socket.release()
            state.listening.store(false, ordering: .releasing)
        }
        let configuration = configuration
        let logger = logger
        let state = state
        let onStarted = onStarted
        let http1Configuration = http1Configuration
        let admission = ConnectionAdmission(policy: policy, limits: configuration.connectionLimits)
        let socketApplication = Application(
            router: makeRouter(routes: allRoutes, authorize: true),
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(
                    responder: responder, configuration: http1Configuration, admission: admission,
                    timeouts: configuration.timeouts, logger: logger)
            },
            configuration: ApplicationConfiguration(
                address: .unixDomainSocket(path: configuration.socketPath), serverName: "footstepd",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.connectionLimits.total, logger: logger)),
            onServerRunning: { _ in
                let group = socket.restrict(mode: configuration.socketMode, group: configuration.readGroup, logger: logger)
                state.listening.store(true, ordering: .releasing)
                onStarted?(true)
                logger.info(
                    "control socket listening on \(configuration.socketPath) (mode \(String(configuration.socketMode, radix: 8)), group \(group ?? "unchanged"))")
            },
            logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            if configuration.metricsPort > 0 {
                let metricsApplication = Application(
                    router: makeRouter(routes: MetricsController(backend: backend, metrics: metrics).routes, authorize: false),
                    server: .http1(configuration: http1Configuration),
                    configuration: ApplicationConfiguration(
                        address: .hostname(configuration.metricsAddress, port: configuration.metricsPort),
                        serverName: "footstepd",
                        availableConnectionsDelegate: MaximumAvailableConnections(16, logger: logger)),
                    onServerRunning: { channel in
                        state.metricsPort.withLock { $0 = channel.localAddress?.port }
                        logger.info("metrics listening on http://\(configuration.metricsAddress):\(configuration.metricsPort)/metrics")
                    },
                    logger: logger)
                group.addTask {
                    do {
                        try await metricsApplication.run()
                    } catch {
                        let reason = "\(error)"
                        state.metricsFailure.withLock { $0 = reason }
                        logger.error(
                            "metrics listener on \(configuration.metricsAddress):\(configuration.metricsPort) not available: \(reason); the control socket and its /metrics go on",
                            metadata: ["metrics.address": "\(configuration.metricsAddress)", "metrics.port": "\(configuration.metricsPort)"])
                    }
                }
            }
            // The socket's application decides: when it ends (graceful shutdown or a
            // failure), the metrics listener ends too; a metrics failure ends only itself.
            try await socketApplication.run()
            group.cancelAll()
        }
    }

    /// The HTTP channel of both listeners; the socket's guard adds its timing and 431 handlers.
    private var http1Configuration: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: configuration.maximumHeaderBytes, maxHeaderListSize: configuration.maximumHeaderBytes,
                maxHeaderFieldCount: configuration.maximumHeaderCount))
    }

    /// Every route of the socket.
    var allRoutes: [Route] {
        let limit = configuration.maximumBodyBytes
        return StatusController(backend: backend).routes
            + SessionsController(backend: backend, bodyLimit: limit, logger: logger).routes
            + EventsController(backend: backend, bodyLimit: limit, logger: logger).routes
            + HistoryController(backend: backend).routes
            + LiveController(backend: backend, writeTimeout: configuration.liveWriteTimeout).routes
            + ConfigController(backend: backend, bodyLimit: limit, logger: logger).routes
            + DiaryController(backend: backend, bodyLimit: limit, logger: logger).routes
            + ReviewsController(backend: backend, bodyLimit: limit, logger: logger).routes
            + RecordingsController(backend: backend).routes
            + MetricsController(backend: backend, metrics: metrics).routes
    }

    /// A router serving `routes`, each checked against the peer's credentials when `authorize`.
    func makeRouter(routes: [Route], authorize: Bool) -> Router<ControlRequestContext> {
        let router = Router(context: ControlRequestContext.self)
        router.add(middleware: APIErrorMiddleware(routes: RouteIndex(routes), logger: logger))
        let authorizer = authorize ? RequestAuthorizer(policy: policy, logger: logger) : nil
        for route in routes {
            router.on(RouterPath(route.path), method: route.method) { request, context in
                var context = context
                if let authorizer {
                    context.peer = try await authorizer.authorize(request, context: context, level: route.access)
                }
                return try await route.handler(request, context)
            }
        }
        return router
    }
}

/// State shared between the service and its callbacks.
final class ServerState: Sendable {
    let listening = Atomic<Bool>(false)
    let metricsPort = Mutex<Int?>(nil)
    let metricsFailure = Mutex<String?>(nil)
}

/// Checks a request's peer against the access policy and logs the decision.
struct RequestAuthorizer: Sendable {
    let policy: AccessPolicy
    let logger: Logger

    func authorize(_ request: Request, context: ControlRequestContext, level: AccessLevel) async throws -> PeerCredentials {
        let peer = try await PeerCredentials.read(from: context.channel)
        let route = "\(request.method.rawValue) \(request.uri.path)"
        let metadata: Logger.Metadata = [
            "peer.uid": "\(peer.uid)", "peer.gid": "\(peer.gid)", "peer.pid": "\(peer.pid)", "access": "\(level.rawValue)",
        ]
        switch policy.decide(peer, level) {
        case let .allowed(reason):
            logger.debug("allowed \(route) (\(reason))", metadata: metadata)
            return peer
        case let .denied(group):
            logger.warning("denied \(route) to uid \(peer.uid) pid \(peer.pid): not in group \(group)", metadata: metadata)
            throw APIError(.forbidden, code: "forbidden", AccessPolicy.denial(of: level, group: group, uid: peer.uid))
        }
    }
}
