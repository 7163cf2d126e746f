import FootstepConfiguration
import FootstepCore
import FootstepMQTT
import FootstepStore
import Foundation
import Logging

/// The daemon's MQTT side (`[mqtt]`): the outbox switched on or off in the store, and the publisher built from
/// the configuration. A problem with the broker or the credentials is logged and shown; recording goes on and
/// what is stored keeps queueing.
enum MQTTPublishing {
    /// Switches the store's outbox to match `mqtt.enabled`, and builds the publisher when it is on (nil when it is
    /// off, or when its files cannot be read: then the journal says why).
    static func start(
        configuration: DaemonConfiguration, database: FootstepDatabase, logger: Logger,
        onCommand: @escaping @Sendable (MQTTCommand, String) -> Void
    ) -> OutboxPublisher? {
        let mqtt = configuration.mqtt
        do {
            let removed = try database.setOutbox(enabled: mqtt.enabled)
            if removed > 0 { logger.notice("MQTT is off: removed \(removed) unpublished rows from the outbox") }
        } catch {
            logger.error("MQTT: cannot switch the outbox: \(error)")
            return nil
        }
        guard mqtt.enabled else { return nil }
        do {
            let publisher = try makePublisher(
                mqtt, database: database, logger: logger, onCommand: mqtt.acceptCommands ? onCommand : nil)
            logger.info(
                "MQTT: publishing to \(publisher.client.options.broker) under \(publisher.settings.topics.prefix)")
            return publisher
        } catch {
            logger.error("MQTT: \(error); not publishing (what is stored is kept for when it is fixed)")
            return nil
        }
    }

    static func makePublisher(
        _ mqtt: DaemonConfiguration.MQTT, database: FootstepDatabase, logger: Logger,
        onCommand: (@Sendable (MQTTCommand, String) -> Void)?
    ) throws(MQTTError) -> OutboxPublisher {
        guard let broker = MQTTBroker(url: mqtt.url) else { throw .invalidURL(mqtt.url) }
        let host = hostname
        let topics = MQTTTopics(prefix: mqtt.topicPrefix.isEmpty ? "footstepd/\(host)" : mqtt.topicPrefix)
        var password: String?
        if let file = mqtt.passwordFile {
            do {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                password = String(text.prefix { $0 != "\n" && $0 != "\r" })
            } catch {
                throw .unreadableFile(path: file, reason: (error as NSError).localizedDescription)
            }
        }
        let client = try MQTTClient(
            options: MQTTClientOptions(
                broker: broker, clientId: mqtt.clientId.isEmpty ? "footstepd-\(host)" : mqtt.clientId,
                username: mqtt.username.isEmpty ? nil : mqtt.username, password: password, caFile: mqtt.caFile,
                certificateFile: mqtt.certificateFile, keyFile: mqtt.keyFile, keepalive: Int(mqtt.keepalive),
                will: MQTTMessage(topic: topics.availability, text: "offline", qos: 1, retain: true)))
        let discovery =
            mqtt.homeAssistant
            ? HomeAssistantDiscovery(
                topics: topics, node: host, name: "footstepd \(host)", version: FootstepVersion.current,
                commands: onCommand != nil) : nil
        return OutboxPublisher(
            client: client, database: database,
            settings: OutboxPublisher.Settings(
                topics: topics, qos: mqtt.qos, discovery: discovery, maximumRows: mqtt.maximumOutboxRows,
                onCommand: onCommand),
            logger: logger)
    }

    /// This machine's name (the default client id and topic prefix).
    static var hostname: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(cString: buffer)
    }
}

extension FootstepDaemonService {
    /// Starts the publisher `configuration` asks for (none when `[mqtt]` is off) and tells it the daemon's state.
    func startMQTT(_ configuration: DaemonConfiguration, database: FootstepDatabase) {
        let publisher = MQTTPublishing.start(configuration: configuration, database: database, logger: logger) {
            [weak self] command, topic in
            Task { await self?.handle(command, from: topic) }
        }
        let task = publisher.map { publisher in Task { await publisher.run() } }
        control.withLock {
            $0.mqtt = publisher
            $0.mqttTask = task
            $0.mqttActivity = nil
        }
        update { _ in }  // tells the publisher the state it starts in
    }

    /// Stops the publisher, if one runs: what is queued is published (at most 3 s), then `offline`. Waits for the
    /// switches under way first.
    func stopMQTT() async {
        await control.withLock { $0.mqttSwitch }?.value
        await stopPublisher()
    }

    private func stopPublisher() async {
        let (publisher, task) = control.withLock { control in
            defer { (control.mqtt, control.mqttTask) = (nil, nil) }
            return (control.mqtt, control.mqttTask)
        }
        guard let publisher else { return }
        await publisher.finish(within: .seconds(3))
        await task?.value
    }

    /// After a reload that changed `[mqtt]`: the running publisher stops (what is queued is published, at most 3 s,
    /// then `offline`) and the new configuration's starts (or none, and the outbox is emptied, when MQTT is now
    /// off). Switches run one after another; before `run()` has opened the store there is nothing to switch (it
    /// starts with the configuration in force then).
    func switchMQTT(to configuration: DaemonConfiguration) {
        control.withLock { control in
            guard let database = control.database else { return }
            let previous = control.mqttSwitch
            control.mqttSwitch = Task { [weak self] in
                await previous?.value
                guard let self, !self.isShuttingDown else { return }
                await self.stopPublisher()
                logger.notice("MQTT: [mqtt] changed by the reload; the old publisher has stopped")
                self.startMQTT(configuration, database: database)
            }
        }
    }

    /// Carries out a command received over MQTT, and logs it with its topic.
    func handle(_ command: MQTTCommand, from topic: String) async {
        switch command {
        case let .mark(text):
            let now = Date()
            let status = status
            // Now on the recording's clock, where the audio it marks is.
            let at = status.state == .recording ? status.level?.time ?? now : now
            do {
                let entry = try await write { database in
                    try database.addDiaryEntry(.mark, at: at, duration: nil, text: text, writtenAt: now)
                }
                logger.notice("MQTT command on \(topic): diary mark \(entry.id ?? 0) written")
            } catch {
                logger.error("MQTT command on \(topic): the mark was not written: \(error)")
            }
        case .pause, .resume:
            let outcome = await send(command == .pause ? .pause : .resume)
            logger.notice("MQTT command on \(topic): \(outcome)")
        }
    }
}

extension SensorActivity {
    /// What the daemon's status says to `<prefix>/state`.
    init(_ status: DaemonStatus) {
        self.init(
            state: status.state.rawValue, recording: status.state == .recording,
            microphoneProblem: status.state == .deviceLost, session: status.sessionId)
    }
}
