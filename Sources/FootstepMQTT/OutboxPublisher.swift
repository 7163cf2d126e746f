import FootstepStore
import Foundation
import Logging
import Synchronization

/// Publishes the store's outbox to the broker, in order, removing each row once the broker has acknowledged it
/// (QoS 1 PUBACK), so that nothing stored is lost to a broker outage, a network loss or a restart.
///
/// One task (``run()``) reacts to what happens, one input at a time: the client connected (announce `online`,
/// the state and the Home Assistant configs, then send the outbox from its first row), a message was
/// acknowledged (remove its row, send the next), the connection was lost (wait: the client reconnects), the
/// outbox grew (a store transaction committed: send), the daemon's state changed (publish it), or
/// ``finish(within:)`` asked it to drain and say `offline`.
public final class OutboxPublisher: Sendable {
    public struct Settings: Sendable {
        public var topics: MQTTTopics
        /// QoS of the records (0 or 1; with 0 a row is removed as soon as it is sent).
        public var qos: Int
        /// Announced on every connection when Home Assistant discovery is on.
        public var discovery: HomeAssistantDiscovery?
        /// The most rows with the broker at once.
        public var window: Int
        /// The outbox's bound (``FootstepDatabase/trimOutbox(maximumRows:)``).
        public var maximumRows: Int
        /// Called with each command received on `<prefix>/command/+` (nil: no subscription, commands ignored).
        public var onCommand: (@Sendable (MQTTCommand, String) -> Void)?

        public init(
            topics: MQTTTopics, qos: Int = 1, discovery: HomeAssistantDiscovery? = nil, window: Int = 64,
            maximumRows: Int = 200_000, onCommand: (@Sendable (MQTTCommand, String) -> Void)? = nil
        ) {
            self.topics = topics
            self.qos = qos
            self.discovery = discovery
            self.window = window
            self.maximumRows = maximumRows
            self.onCommand = onCommand
        }
    }

    /// What status and metrics show.
    public struct Health: Sendable, Equatable {
        public var connected = false
        /// Why the broker cannot be reached, while it cannot.
        public var problem: String?
        public var outboxDepth = 0
        public var oldestQueuedAt: Date?
        /// Level rows dropped to keep the outbox bounded, ever.
        public var dropped = 0
        /// Records published (and acknowledged) since start.
        public var published = 0
        /// Commands received while `accept_commands` is off, refused and logged, since start.
        public var refusedCommands = 0
    }

    enum Input: Sendable {
        case client(MQTTClient.Event)
        case outboxChanged
        case activity(SensorActivity)
        case finish(ContinuousClock.Instant)
        case deadline
    }

    public let settings: Settings
    public let client: MQTTClient
    private let database: FootstepDatabase
    private let logger: Logger
    private let inputs: AsyncStream<Input>
    private let input: AsyncStream<Input>.Continuation
    private let healthState = Mutex(Health())
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let done = Atomic<Bool>(false)

    public init(client: MQTTClient, database: FootstepDatabase, settings: Settings, logger: Logger) {
        self.client = client
        self.database = database
        self.settings = settings
        self.logger = logger
        (inputs, input) = AsyncStream.makeStream(of: Input.self)
    }

    public var health: Health { healthState.withLock { $0 } }

    /// The daemon's activity changed: publish the state (retained) now or on the next connection.
    public func activityChanged(_ activity: SensorActivity) { input.yield(.activity(activity)) }

    /// Publishes what is left in the outbox (for at most `within`), says `offline`, disconnects, and returns once
    /// ``run()`` has ended.
    public func finish(within: Duration) async {
        guard !done.load(ordering: .acquiring) else { return }
        await withCheckedContinuation { continuation in
            finished.withLock { $0 = continuation }
            input.yield(.finish(.now + within))
        }
    }

    /// Runs until ``finish(within:)``.
    public func run() async {
        let forward = Task { [client, input] in
            for await event in client.events { input.yield(.client(event)) }
        }
        let observation = database.observeOutbox(
            onError: { [logger] error in logger.error("MQTT outbox: cannot watch the store: \(error)") },
            onChange: { [input] in input.yield(.outboxChanged) })
        client.start()
        var loop = Loop(publisher: self)
        for await next in inputs {
            if loop.handle(next) { break }
        }
        observation.cancel()
        client.stop()
        forward.cancel()
        done.store(true, ordering: .releasing)
        finished.withLock { $0?.resume(); $0 = nil }
    }

    /// The run task's state.
    private struct Loop {
        let publisher: OutboxPublisher
        var window: OutboxWindow
        var connected = false
        var activity: SensorActivity?
        /// The state last published.
        var published: SensorState?
        var finishing: ContinuousClock.Instant?
        var offlineMessage: Int32?
        var lastTrim = ContinuousClock.now - .seconds(3600)
        var problem: String?
        var lastHealth = ContinuousClock.now - .seconds(3600)
        var lastRefusal = ContinuousClock.now - .seconds(3600)

        init(publisher: OutboxPublisher) {
            self.publisher = publisher
            window = OutboxWindow(capacity: publisher.settings.window)
        }

        var settings: Settings { publisher.settings }
        var logger: Logger { publisher.logger }

        /// Reacts to one input; true when the run is over.
        mutating func handle(_ input: Input) -> Bool {
            switch input {
            case .client(.connected):
                connected = true
                published = nil
                if problem != nil || !publisher.health.connected {
                    logger.notice("MQTT: connected to \(publisher.client.options.broker)")
                }
                problem = nil
                window.restart()
                announce()
                send()
            case let .client(.unreachable(reason)), let .client(.disconnected(.some(reason))):
                connected = false
                window.restart()
                let said = "\(publisher.client.options.broker): \(reason)"
                if problem != said {
                    // Once per new reason, not at every retry.
                    logger.error("MQTT: \(said); footstepd records on and keeps what is to be published")
                    problem = said
                }
                if finishing != nil { return true }
            case .client(.disconnected(nil)):
                return true
            case let .client(.acknowledged(mid)):
                if mid == offlineMessage { return true }
                if let row = window.acknowledged(mid) {
                    remove([row])
                    publisher.healthState.withLock { $0.published += 1 }
                }
                send()
            case let .client(.received(message)):
                if let onCommand = settings.onCommand {
                    if let command = MQTTCommand(message, topics: settings.topics) {
                        onCommand(command, message.topic)
                    } else {
                        logger.warning("MQTT: ignored \(message.topic): not a command (mark, pause, resume)")
                    }
                } else {
                    publisher.healthState.withLock { $0.refusedCommands += 1 }
                    // Once a minute at most: a broker's other clients cannot fill the journal.
                    if ContinuousClock.now - lastRefusal >= .seconds(60) {
                        lastRefusal = .now
                        logger.warning(
                            "MQTT: refused the command on \(message.topic): commands are off (set mqtt.accept_commands = true to act on them)")
                    }
                }
            case .client(.subscribed):
                break
            case .outboxChanged:
                send()
                trimIfDue()
            case let .activity(new):
                guard new != activity else { break }
                activity = new
                if connected { publishState() }
            case let .finish(deadline):
                finishing = deadline
                wake(at: deadline)
                if !connected { return true }
                send()
            case .deadline:
                // Out of time: say offline now, and give its acknowledgement a second at most.
                if offlineMessage != nil { return true }
                goOffline()
                if offlineMessage == nil || offlineMessage == -1 { return true }
                wake(at: .now + .seconds(1))
            }
            updateHealth()
            if finishing != nil, connected, offlineMessage == nil, window.inFlight.isEmpty, outboxIsEmpty {
                goOffline()
            }
            return false
        }

        /// Sends ``Input/deadline`` at `instant`.
        private func wake(at instant: ContinuousClock.Instant) {
            Task { [input = publisher.input] in
                try? await Task.sleep(until: instant)
                input.yield(.deadline)
            }
        }

        /// `online`, the state and the discovery configs (all retained). Commands are subscribed to even
        /// when they are off, so that one sent then is refused in the journal rather than lost unseen.
        private mutating func announce() {
            do {
                try publisher.client.subscribe(settings.topics.command("+"), qos: 1)
            } catch {
                logger.error("MQTT: \(error); commands are not received")
            }
            publish(MQTTMessage(topic: settings.topics.availability, text: "online", retain: true))
            publishState()
            for message in settings.discovery?.messages ?? [] { publish(message) }
        }

        /// The state, when it differs from what was last published.
        private mutating func publishState() {
            guard let activity else { return }
            let now = Date()
            let counts = try? publisher.database.eventCountsByType(from: now.addingTimeInterval(-3600), to: now)
            let state = SensorState(activity, footstepsLastHour: counts?.values.reduce(0, +) ?? 0)
            guard state != published else { return }
            if publish(MQTTMessage(topic: settings.topics.state, payload: MQTTPayloads.encode(state), retain: true)) != nil {
                published = state
            }
        }

        private mutating func goOffline() {
            guard connected else { return }
            offlineMessage = publish(MQTTMessage(topic: settings.topics.availability, text: "offline", retain: true))
            if offlineMessage == nil { offlineMessage = -1 }
        }

        @discardableResult
        private func publish(_ message: MQTTMessage) -> Int32? {
            do {
                return try publisher.client.publish(message)
            } catch {
                logger.error("MQTT: \(error)")
                return nil
            }
        }

        /// Hands the next outbox rows to the client while the window has room; then the state, when the footsteps
        /// of the last hour may have changed.
        private mutating func send() {
            guard connected, offlineMessage == nil else { return }
            var countsChanged = false
            defer { if countsChanged { publishState() } }
            while window.room > 0 {
                let entries: [OutboxEntry]
                do {
                    entries = try publisher.database.outbox(after: window.cursor, limit: window.room)
                } catch {
                    logger.error("MQTT: cannot read the outbox: \(error)")
                    return
                }
                guard !entries.isEmpty else { return }
                if entries.contains(where: { $0.topic == .event || $0.topic == .levels || $0.topic == .deletion }) {
                    countsChanged = true
                }
                var gone: [Int64] = []
                for entry in entries {
                    guard let (name, payload) = MQTTPayloads.message(for: entry) else {
                        window.skipped(row: entry.id)
                        gone.append(entry.id)
                        continue
                    }
                    let message = MQTTMessage(
                        topic: settings.topics.record(name), payload: payload, qos: settings.qos, retain: false)
                    guard let mid = publish(message) else { return }
                    if settings.qos == 0 {
                        window.skipped(row: entry.id)
                        gone.append(entry.id)
                    } else {
                        window.sent(row: entry.id, as: mid)
                    }
                }
                remove(gone)
            }
        }

        private func remove(_ rows: [Int64]) {
            do {
                try publisher.database.removeFromOutbox(rows)
            } catch {
                logger.error("MQTT: cannot remove published rows from the outbox: \(error)")
            }
        }

        private var outboxIsEmpty: Bool {
            ((try? publisher.database.outbox(after: 0, limit: 1)) ?? []).isEmpty
        }

        /// Keeps the outbox bounded while the broker is away, at most once a minute.
        private mutating func trimIfDue() {
            guard !connected, ContinuousClock.now - lastTrim >= .seconds(60) else { return }
            lastTrim = .now
            do {
                let dropped = try publisher.database.trimOutbox(maximumRows: settings.maximumRows)
                if dropped > 0 {
                    logger.warning(
                        "MQTT: the outbox reached \(settings.maximumRows) rows; dropped the \(dropped) oldest level rows (events are never dropped)")
                }
            } catch {
                logger.error("MQTT: cannot trim the outbox: \(error)")
            }
        }

        /// Status and metrics, at most once a second (the depth is a COUNT over the outbox).
        private mutating func updateHealth() {
            let now = ContinuousClock.now
            let stored = now - lastHealth >= .seconds(1) ? try? publisher.database.outboxHealth() : nil
            if stored != nil { lastHealth = now }
            publisher.healthState.withLock { health in
                health.connected = connected
                health.problem = problem
                if let stored {
                    health.outboxDepth = stored.depth
                    health.oldestQueuedAt = stored.oldestQueuedAt
                    health.dropped = stored.dropped
                }
            }
        }
    }
}
