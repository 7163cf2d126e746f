import CMosquitto
import FootstepCore
import Foundation
import Synchronization

/// A message to publish or one received.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: Int = 1, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    public var text: String { String(decoding: payload, as: UTF8.self) }
}

/// How to reach and log in to the broker.
public struct MQTTClientOptions: Sendable {
    public var broker: MQTTBroker
    public var clientId: String
    public var username: String?
    public var password: String?
    /// PEM files for TLS (`mqtts://`): the CA that signed the broker's
    /// certificate, and optionally this client's certificate and key.
    public var caFile: String?
    public var certificateFile: String?
    public var keyFile: String?
    public var keepalive: Int
    /// Published by the broker when this client goes away without saying so.
    public var will: MQTTMessage?
    /// False keeps the broker's session (its subscriptions and queued QoS 1
    /// messages) across reconnects: a collector loses nothing while it is away.
    public var cleanSession: Bool
    /// The longest wait between connection attempts (they start at 1 s and double).
    public var maximumRetryDelay: Duration

    public init(
        broker: MQTTBroker, clientId: String, username: String? = nil, password: String? = nil,
        caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, keepalive: Int = 60,
        will: MQTTMessage? = nil, cleanSession: Bool = true, maximumRetryDelay: Duration = .seconds(30)
    ) {
        self.broker = broker
        self.clientId = clientId
        self.username = username
        self.password = password
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.keepalive = keepalive
        self.will = will
        self.cleanSession = cleanSession
        self.maximumRetryDelay = maximumRetryDelay
    }
}

/// An MQTT 3.1.1 client on libmosquitto, with its network loop on a thread of
/// its own that connects, reconnects (1 s doubling to `maximumRetryDelay`) and
/// reports what happens on ``events``, in order.
///
/// ``publish(_:)`` and ``subscribe(_:qos:)`` may be called from any thread
/// (libmosquitto in threaded mode); a message published while the broker is
/// away is queued by libmosquitto and sent once it is back.
public final class MQTTClient: Sendable {
    /// What the network thread saw.
    public enum Event: Sendable, Equatable {
        /// The broker accepted the connection.
        case connected
        /// The broker could not be reached, or refused the connection (its
        /// reason, e.g. "not authorised"); the client tries again.
        case unreachable(String)
        /// The connection was lost (nil: after ``stop()``).
        case disconnected(String?)
        /// The broker acknowledged a QoS 1 message (its id from ``publish(_:)``).
        case acknowledged(Int32)
        case received(MQTTMessage)
        /// The broker granted a subscription (its id from ``subscribe(_:qos:)``).
        case subscribed(Int32)
    }

    public let options: MQTTClientOptions
    /// Every event, in order, until ``stop()``.
    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let handle: Handle
    private let callbacks: Unmanaged<Callbacks>
    private let stopping = Atomic<Bool>(false)
    private let wake = NSCondition()
    /// Set by the network thread as it ends.
    private let ended = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)

    /// Sets the client up; nothing connects before ``start()``.
    public init(options: MQTTClientOptions) throws(MQTTError) {
        _ = Self.library
        self.options = options
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
        callbacks = Unmanaged.passRetained(Callbacks(continuation: continuation))
        guard let pointer = mosquitto_new(options.clientId, options.cleanSession, callbacks.toOpaque()) else {
            callbacks.release()
            throw .rejected(what: "client id '\(options.clientId)'", reason: "libmosquitto cannot create a client")
        }
        handle = Handle(pointer)
        do {
            try configure()
        } catch {
            mosquitto_destroy(pointer)
            callbacks.release()
            throw error
        }
    }

    deinit {
        mosquitto_destroy(handle.pointer)
        callbacks.release()
    }

    /// Starts the network thread: it connects, and reconnects whenever the connection is lost.
    public func start() {
        let thread = Thread { [self] in
            runLoop()
            ended.store(true, ordering: .releasing)
            wake.lock()
            wake.broadcast()
            wake.unlock()
        }
        thread.name = "mqtt"
        started.store(true, ordering: .releasing)
        thread.start()
    }

    /// Publishes a message; returns its id, which ``Event/acknowledged(_:)`` names for QoS 1.
    @discardableResult
    public func publish(_ message: MQTTMessage) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes { bytes in
            mosquitto_publish(
                handle.pointer, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, Int32(message.qos),
                message.retain)
        }
        // Not connected: libmosquitto has queued it and sends it on reconnection.
        guard rc == MOSQ_ERR_SUCCESS.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue else {
            throw .rejected(what: "publishing to \(message.topic)", reason: Self.reason(rc))
        }
        return mid
    }

    /// Subscribes to a topic filter (`footstepd/+/event`) once connected; repeat after every
    /// ``Event/connected`` of a clean session. Returns the id that ``Event/subscribed(_:)`` names.
    @discardableResult
    public func subscribe(_ filter: String, qos: Int = 1) throws(MQTTError) -> Int32 {
        var mid: Int32 = 0
        let rc = mosquitto_subscribe(handle.pointer, &mid, filter, Int32(qos))
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw .rejected(what: "subscribing to \(filter)", reason: Self.reason(rc))
        }
        return mid
    }

    /// Disconnects (the broker does not publish the will), stops the network
    /// thread and ends ``events``. Waits at most `timeout` for the thread.
    public func stop(timeout: Duration = .seconds(2)) {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        mosquitto_disconnect(handle.pointer)
        wake.lock()
        wake.broadcast()
        wake.unlock()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date().addingTimeInterval(seconds)
        wake.lock()
        while started.load(ordering: .acquiring), !ended.load(ordering: .acquiring), wake.wait(until: deadline) {}
        wake.unlock()
        continuation.yield(.disconnected(nil))
        continuation.finish()
    }

    // MARK: The network thread

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func runLoop() {
        var delay = Duration.seconds(1)
        var first = true
        while !isStopping {
            let rc =
                first
                ? mosquitto_connect(handle.pointer, options.broker.host, Int32(options.broker.port), Int32(options.keepalive))
                : mosquitto_reconnect(handle.pointer)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                if isStopping { break }
                continuation.yield(.unreachable(callbacks.takeUnretainedValue().explained(Self.reason(rc))))
                pause(delay)
                delay = min(delay * 2, options.maximumRetryDelay)
                continue
            }
            first = false
            var loop = MOSQ_ERR_SUCCESS.rawValue
            while !isStopping, loop == MOSQ_ERR_SUCCESS.rawValue {
                loop = mosquitto_loop(handle.pointer, 200, 1)
            }
            if isStopping {
                // Send the DISCONNECT that stop() queued.
                for _ in 0..<10 where mosquitto_loop(handle.pointer, 50, 1) == MOSQ_ERR_SUCCESS.rawValue {}
                break
            }
            let callbacks = callbacks.takeUnretainedValue()
            let accepted = callbacks.takeConnected()
            if !callbacks.takeReported() {
                // libmosquitto 2.0 returns some failures from mosquitto_loop without
                // calling on_disconnect: a TLS handshake the client refuses (an unknown CA) among them.
                let reason = callbacks.explained(Self.reason(loop))
                continuation.yield(accepted ? .disconnected(reason) : .unreachable(reason))
            }
            if accepted { delay = .seconds(1) }
            pause(delay)
            delay = min(delay * 2, options.maximumRetryDelay)
        }
    }

    /// Sleeps `duration`, or until ``stop()``.
    private func pause(_ duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        wake.lock()
        if !isStopping { _ = wake.wait(until: Date().addingTimeInterval(seconds)) }
        wake.unlock()
    }

    // MARK: Setting up

    private static let library: Void = { mosquitto_lib_init() }()

    private func configure() throws(MQTTError) {
        let pointer = handle.pointer
        mosquitto_threaded_set(pointer, true)
        mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        if let username = options.username {
            try check(mosquitto_username_pw_set(pointer, username, options.password), "username")
        }
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(pointer, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos), will.retain)
            }
            try check(rc, "last will on \(will.topic)")
        }
        if options.broker.tls {
            for path in [options.caFile, options.certificateFile, options.keyFile].compactMap({ $0 })
            where !FileManager.default.isReadableFile(atPath: path) {
                throw .unreadableFile(path: path, reason: "no such file, or not readable by this user")
            }
            try check(
                mosquitto_tls_set(pointer, options.caFile, options.caFile == nil ? "/etc/ssl/certs" : nil,
                                  options.certificateFile, options.keyFile, nil),
                "TLS files")
        }
        mosquitto_connect_callback_set(pointer) { _, context, rc in
            Callbacks.of(context).connected(rc)
        }
        mosquitto_disconnect_callback_set(pointer) { _, context, rc in
            Callbacks.of(context).disconnected(rc)
        }
        mosquitto_log_callback_set(pointer) { _, context, level, line in
            // OpenSSL's reasons ("certificate verify failed") reach the client through its log only.
            guard level == MOSQ_LOG_ERR, let line else { return }
            Callbacks.of(context).logged(String(cString: line))
        }
        mosquitto_publish_callback_set(pointer) { _, context, mid in
            Callbacks.of(context).continuation.yield(.acknowledged(mid))
        }
        mosquitto_subscribe_callback_set(pointer) { _, context, mid, _, _ in
            Callbacks.of(context).continuation.yield(.subscribed(mid))
        }
        mosquitto_message_callback_set(pointer) { _, context, message in
            guard let message, let topic = message.pointee.topic else { return }
            let payload = UnsafeRawBufferPointer(start: message.pointee.payload, count: Int(message.pointee.payloadlen))
            Callbacks.of(context).continuation.yield(
                .received(MQTTMessage(
                    topic: String(cString: topic), payload: Array(payload), qos: Int(message.pointee.qos),
                    retain: message.pointee.retain)))
        }
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw .rejected(what: what, reason: Self.reason(rc)) }
    }

    static func reason(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue {
            let error = errno
            let text = String(cString: strerror(error))
            // What systemd's IPAddressDeny= (or a local firewall) makes of a connection to another machine.
            return error == EPERM ? text + " (a firewall or the unit's IPAddressAllow= forbids this address)" : text
        }
        return String(cString: mosquitto_strerror(rc))
    }

    /// The libmosquitto client; used through its thread-safe calls only (threaded mode).
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
    }

    /// What libmosquitto's callbacks (on the network thread) reach through their context pointer.
    private final class Callbacks: Sendable {
        let continuation: AsyncStream<Event>.Continuation
        /// Whether a connection was accepted since the network thread last looked.
        private let accepted = Atomic<Bool>(false)
        /// Whether the broker just refused the connection (the disconnection that follows says less).
        private let refused = Atomic<Bool>(false)
        /// Whether a failure was reported since the network thread last looked.
        private let reported = Atomic<Bool>(false)
        /// libmosquitto's last error line (OpenSSL's reason for a failed handshake), until a failure names it.
        private let lastError = Mutex<String?>(nil)

        init(continuation: AsyncStream<Event>.Continuation) { self.continuation = continuation }

        static func of(_ context: UnsafeMutableRawPointer?) -> Callbacks {
            Unmanaged<Callbacks>.fromOpaque(context!).takeUnretainedValue()
        }

        func connected(_ rc: Int32) {
            if rc == 0 {
                lastError.withLock { $0 = nil }
                accepted.store(true, ordering: .releasing)
                continuation.yield(.connected)
            } else {
                refused.store(true, ordering: .releasing)
                reported.store(true, ordering: .releasing)
                continuation.yield(.unreachable("the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))"))
            }
        }

        func disconnected(_ rc: Int32) {
            // rc 0: asked for (stop() reports that itself).
            if rc != 0, !refused.exchange(false, ordering: .acquiringAndReleasing) {
                reported.store(true, ordering: .releasing)
                continuation.yield(.disconnected(explained(MQTTClient.reason(rc))))
            }
        }

        func logged(_ line: String) { lastError.withLock { $0 = line } }

        /// `reason`, with libmosquitto's last error line if one came since the last failure.
        func explained(_ reason: String) -> String {
            guard let line = lastError.withLock({ line in defer { line = nil }; return line }) else { return reason }
            return "\(reason) (\(line))"
        }

        func takeConnected() -> Bool { accepted.exchange(false, ordering: .acquiringAndReleasing) }
        func takeReported() -> Bool { reported.exchange(false, ordering: .acquiringAndReleasing) }
    }
}
