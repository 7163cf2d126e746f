import FootstepCore
import FootstepMQTT
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import Synchronization

/// A fixed start time (2025-03-01 22:00:00 UTC).
let referenceStart = Date(timeIntervalSince1970: 1_740_866_400)

/// A store in `directory` with the outbox on and one recording session.
func makeStore(in directory: TemporaryDirectory) throws -> (FootstepDatabase, Int64) {
    let store = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
    try store.setOutbox(enabled: true)
    let session = try store.createSession(startedAt: referenceStart, device: "hw:1,0", sampleRate: 16_000, timeZone: "UTC")
    return (store, session.id!)
}

/// Stores `count` footsteps after the session's `first` (0.5 s apart); returns their ids.
@discardableResult
func storeSteps(_ store: FootstepDatabase, session: Int64, first: Int, count: Int) throws -> [Int64] {
    try store.appendEvents(
        (first..<first + count).map { index in
            let frame = Int64(index) * 8000
            return NewEvent(
                sessionId: session, audioFileId: nil, frameOffset: frame,
                timestamp: NewEvent.timestamp(anchor: referenceStart, frameOffset: frame, sampleRate: 16_000),
                measurements: EventMeasurements(
                    duration: 0.1, kind: .footstep, type: .heelStrike, confidence: 0.8, intensity: .medium,
                    laMax: 48, lcMax: 60, peakDBFS: -30, sel: 40, backgroundLA: 28))
        })
}

/// A publisher of `store` to `broker` under `footstepd/test`, running until ``stop()``.
final class RunningPublisher: Sendable {
    let publisher: OutboxPublisher
    let task: Task<Void, Never>

    init(
        store: FootstepDatabase, url: String, username: String? = nil, password: String? = nil, caFile: String? = nil,
        prefix: String = "footstepd/test", onCommand: (@Sendable (MQTTCommand, String) -> Void)? = nil
    ) throws {
        let topics = MQTTTopics(prefix: prefix)
        let client = try MQTTClient(
            options: MQTTClientOptions(
                broker: MQTTBroker(url: url)!, clientId: "footstepd-\(prefix)", username: username, password: password,
                caFile: caFile,
                will: MQTTMessage(topic: topics.availability, text: "offline", retain: true),
                maximumRetryDelay: .milliseconds(500)))
        var logger = Logger(label: "mqtt-test")
        logger.logLevel = .critical
        publisher = OutboxPublisher(
            client: client, database: store,
            settings: OutboxPublisher.Settings(topics: topics, onCommand: onCommand),
            logger: logger)
        let publisher = publisher
        task = Task { await publisher.run() }
    }

    /// Drains (at most 3 s), says offline, disconnects.
    func stop() async {
        await publisher.finish(within: .seconds(3))
        await task.value
    }
}

/// A subscriber to `filter` that keeps every message it receives; a persistent session (clean session off), so
/// that what is published while it is away waits for it at the broker.
final class Subscriber: Sendable {
    let client: MQTTClient
    private let inbox = Inbox()
    private let task: Task<Void, Never>

    private final class Inbox: Sendable {
        let received = Mutex<[MQTTMessage]>([])
        let ready = Atomic<Int>(0)
    }

    init(
        url: String, filter: String, clientId: String = "subscriber", username: String? = nil, password: String? = nil,
        caFile: String? = nil
    ) throws {
        client = try MQTTClient(
            options: MQTTClientOptions(
                broker: MQTTBroker(url: url)!, clientId: clientId, username: username, password: password,
                caFile: caFile, cleanSession: false,
                maximumRetryDelay: .milliseconds(300)))
        let client = client
        let inbox = inbox
        task = Task {
            for await event in client.events {
                switch event {
                case .connected: _ = try? client.subscribe(filter, qos: 1)
                case .subscribed: inbox.ready.add(1, ordering: .releasing)
                case let .received(message): inbox.received.withLock { $0.append(message) }
                default: break
                }
            }
        }
        client.start()
    }

    /// Waits until the broker has granted the subscription `times` times.
    func waitSubscribed(times: Int = 1) async -> Bool {
        await waitUntil(10) { inbox.ready.load(ordering: .acquiring) >= times }
    }

    var messages: [MQTTMessage] { inbox.received.withLock { $0 } }

    /// The `id` of every message on `topic`, in arrival order, each once (consumers deduplicate by id).
    func ids(on topic: String) -> [Int64] {
        var seen = Set<Int64>()
        return messages.filter { $0.topic == topic }.compactMap { message in
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                let id = (object["id"] as? NSNumber)?.int64Value, seen.insert(id).inserted
            else { return nil }
            return id
        }
    }

    func stop() {
        client.stop()
        task.cancel()
    }
}
