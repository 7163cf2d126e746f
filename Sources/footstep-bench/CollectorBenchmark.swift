import FootstepCollector
import FootstepCore
import FootstepMQTT
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import PostgresNIO

/// `footstep-bench collector [SENSORS] [EVENTS]`: the fleet collector between a real Mosquitto broker and a real
/// PostgreSQL server, both started here on loopback in temporary directories (PostgreSQL with `fsync=off`, as the
/// tests run it), with SENSORS footstepd stores and outbox publishers in this process (default 50 and 40):
/// - **ingest:** every sensor's EVENTS events are stored first, then the publishers start; the time until the last
///   row is in PostgreSQL gives events ingested a second;
/// - **latency:** then each sensor stores one event a second for 10 s; the time from the store on the sensor to
///   the row's `received_at` in PostgreSQL (publish, broker, collector, transaction) gives p50, p95 and the most.
enum CollectorBenchmark {
    static func run(arguments: [String]) async throws {
        guard MosquittoBroker.isAvailable, PostgresServer.isAvailable else {
            print("fleet collector: skipped (needs mosquitto and postgresql installed)")
            return
        }
        let sensorCount = arguments.first.flatMap { Int($0) } ?? 50
        let perSensor = arguments.count > 1 ? Int(arguments[1]) ?? 40 : 40
        let broker = try MosquittoBroker(persistence: true)
        try broker.start()
        defer { broker.kill() }
        let database = try PostgresServer()
        try database.start()
        defer { database.stop() }
        var logger = Logger(label: "footstep-bench")
        logger.logLevel = .critical
        let store = FleetStore(
            client: PostgresClient(configuration: try FleetStore.configuration(url: database.url)), logger: logger)
        let client = try MQTTClient(
            options: MQTTClientOptions(broker: MQTTBroker(url: broker.url())!, clientId: "collector", cleanSession: false))
        let collector = Collector(client: client, store: store, prefix: "footstepd", logger: logger)
        let collecting = Task { try await collector.runWithDatabase() }
        defer { collecting.cancel() }
        guard await waitUntil(20, { (try? database.psql("SELECT count(*) FROM sensor")) == "0" }) else {
            throw ProbeError("the collector did not create its tables within 20 s")
        }
        try await Task.sleep(for: .milliseconds(1500))  // subscribed

        let directory = try TemporaryDirectory(prefix: "footstep-bench-fleet")
        var sensors: [(store: FootstepDatabase, session: Int64)] = []
        for index in 0..<sensorCount {
            let sensor = try FootstepDatabase.open(path: directory.appending("sensor-\(index).db"))
            try sensor.setOutbox(enabled: true)
            let session = try sensor.createSession(startedAt: start, device: "bench", sampleRate: 16_000)
            try sensor.appendEvents((0..<perSensor).map { step(session.id!, $0) })
            sensors.append((sensor, session.id!))
        }
        let total = sensorCount * perSensor
        let began = ContinuousClock.now
        var publishers: [(OutboxPublisher, Task<Void, Never>)] = []
        for (index, sensor) in sensors.enumerated() {
            let topics = MQTTTopics(prefix: "footstepd/sensor-\(index)")
            let publisher = OutboxPublisher(
                client: try MQTTClient(
                    options: MQTTClientOptions(broker: MQTTBroker(url: broker.url())!, clientId: "sensor-\(index)")),
                database: sensor.store, settings: OutboxPublisher.Settings(topics: topics), logger: logger)
            publishers.append((publisher, Task { await publisher.run() }))
        }
        guard await waitUntil(300, { (try? database.psql("SELECT count(*) FROM event")) == "\(total)" }) else {
            throw ProbeError("not every event was collected within 300 s")
        }
        let ingest = seconds(ContinuousClock.now - began)
        print("fleet collector (\(sensorCount) sensors, one Mosquitto broker, one PostgreSQL with fsync off), release build:")
        print(String(format: "  ingest: %d events in %.2f s = %.0f events/s", total, ingest, Double(total) / ingest))

        var storedAt: [String: Double] = [:]
        for second in 0..<10 {
            for (index, sensor) in sensors.enumerated() {
                let ids = try sensor.store.appendEvents([step(sensor.session, perSensor + second)])
                storedAt["sensor-\(index)|\(ids[0])"] = Date().timeIntervalSince1970
            }
            try await Task.sleep(for: .seconds(1))
        }
        let latest = total + 10 * sensorCount
        guard await waitUntil(60, { (try? database.psql("SELECT count(*) FROM event")) == "\(latest)" }) else {
            throw ProbeError("the paced events were not all collected within 60 s")
        }
        let rows = try database.psql(
            "SELECT sensor, id, extract(epoch FROM received_at) FROM event WHERE id > \(perSensor)")
        var latencies: [Double] = []
        for row in rows.split(separator: "\n") {
            let fields = row.split(separator: "|")
            guard fields.count == 3, let received = Double(fields[2]),
                let stored = storedAt["\(fields[0])|\(fields[1])"]
            else { continue }
            latencies.append((received - stored) * 1000)
        }
        latencies.sort()
        guard !latencies.isEmpty else { throw ProbeError("no paced event was matched") }
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(p * Double(latencies.count)))] }
        print(String(
            format: "  store on the sensor → row in PostgreSQL, %d events at %d a second: p50 %.0f ms, p95 %.0f ms, max %.0f ms",
            latencies.count, sensorCount, percentile(0.5), percentile(0.95), latencies.last!))
        for (publisher, task) in publishers {
            await publisher.finish(within: .seconds(3))
            await task.value
        }
        collecting.cancel()
        _ = await collecting.result
    }

    /// When the sensors' sessions start (2026-01-01 00:00 UTC).
    private static let start = Date(timeIntervalSince1970: 1_767_225_600)

    private static func step(_ session: Int64, _ index: Int) -> NewEvent {
        let frame = Int64(index) * 8_000
        return NewEvent(
            sessionId: session, frameOffset: frame,
            timestamp: NewEvent.timestamp(anchor: start, frameOffset: frame, sampleRate: 16_000),
            measurements: EventMeasurements(
                duration: 0.1, kind: .footstep, type: .heelStrike, confidence: 0.8, intensity: .medium,
                laMax: 48, lcMax: 60, peakDBFS: -30, sel: 40, backgroundLA: 28))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
