import FootstepMQTT
import Foundation
import Logging

/// The fleet collector: a persistent MQTT session (clean session off, QoS 1) on `<prefix>/+/+`, so that what the
/// sensors publish while it is away waits at the broker; each message stored in PostgreSQL in the order it came,
/// each sensor's chain verified as its events arrive.
public struct Collector: Sendable {
    public let client: MQTTClient
    public let store: FleetStore
    public let prefix: String
    let logger: Logger

    public init(client: MQTTClient, store: FleetStore, prefix: String, logger: Logger) {
        self.client = client
        self.store = store
        self.prefix = prefix
        self.logger = logger
    }

    /// Runs until cancelled: connects (and reconnects), subscribes, stores.
    public func run() async {
        client.start()
        await withTaskCancellationHandler {
            for await event in client.events {
                switch event {
                case .connected:
                    logger.notice("connected to \(client.options.broker); collecting \(prefix)/+/+")
                    do {
                        try client.subscribe("\(prefix)/+/+", qos: 1)
                    } catch {
                        logger.error("\(error)")
                    }
                case let .unreachable(reason), let .disconnected(.some(reason)):
                    logger.error("\(client.options.broker): \(reason); the broker keeps the messages for this session")
                case let .received(message):
                    guard let message = FleetMessage(message, prefix: prefix) else { continue }
                    do {
                        for alert in try await store.ingest(message) { logger.critical("\(alert)") }
                    } catch {
                        logger.error("sensor \(message.sensor): \(message.topic) not stored: \(error)")
                    }
                case .disconnected(nil), .acknowledged, .subscribed:
                    continue
                }
            }
        } onCancel: {
            client.stop()
        }
    }
}
