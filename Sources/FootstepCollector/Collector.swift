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

    /// Runs the database client, creates the missing tables, then collects until cancelled. On cancellation the
    /// collector stops first (the message in hand is stored whole), then the database client.
    ///
    /// - Throws: When the tables cannot be created (the database is unreachable or refuses): nothing is collected.
    public func runWithDatabase() async throws {
        // Unstructured, so that cancelling this task does not stop the database under a message being stored.
        let database = Task { await store.client.run() }
        let collecting = Task {
            try await store.migrate()
            await run()
        }
        let result = await withTaskCancellationHandler {
            await collecting.result
        } onCancel: {
            collecting.cancel()
        }
        database.cancel()
        await database.value
        try result.get()
    }

    /// Collects until cancelled: connects (and reconnects), subscribes, stores. The database client must run.
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
                        // Whole even when the collector is stopped meanwhile: libmosquitto has acknowledged it.
                        let store = store
                        let alerts = try await Task { try await store.ingest(message) }.value
                        for alert in alerts { logger.critical("\(alert)") }
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
