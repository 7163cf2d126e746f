import FootstepCollector
import FootstepCore
import FootstepMQTT
import FootstepStore
import FootstepTesting
import Foundation
import Logging
import PostgresNIO
import Testing

/// The fleet collector between a real Mosquitto broker and a real PostgreSQL server: several sensors' records
/// arrive once, each chain verifies, a deletion is told from a loss, a lost message is a chain break, and what is
/// published while the collector is down arrives when it returns.
@Suite(
    "Fleet collector", .enabled(if: MosquittoBroker.isAvailable && PostgresServer.isAvailable), .serialized)
struct CollectorTests {
    /// A collector of `broker` into `database`, running until ``stop()``.
    final class RunningCollector: Sendable {
        let store: FleetStore
        let tasks: Task<Void, Never>

        init(broker: MosquittoBroker, database: PostgresServer) async throws {
            var logger = Logger(label: "collector-test")
            logger.logLevel = .critical
            store = FleetStore(
                client: PostgresClient(configuration: try FleetStore.configuration(url: database.url)), logger: logger)
            let client = try MQTTClient(
                options: MQTTClientOptions(
                    broker: MQTTBroker(url: broker.url())!, clientId: "collector", cleanSession: false,
                    maximumRetryDelay: .milliseconds(300)))
            let collector = Collector(client: client, store: store, prefix: "footstepd", logger: logger)
            tasks = Task { try? await collector.runWithDatabase() }
        }

        func stop() async {
            tasks.cancel()
            await tasks.value
        }
    }

    /// A sensor: its own store and publisher under `footstepd/<name>`.
    struct Sensor {
        let name: String
        let directory: TemporaryDirectory
        let store: FootstepDatabase
        let session: Int64

        init(_ name: String) throws {
            self.name = name
            directory = try TemporaryDirectory()
            (store, session) = try makeStore(in: directory)
        }

        func publisher(_ broker: MosquittoBroker) throws -> RunningPublisher {
            try RunningPublisher(store: store, url: broker.url(), prefix: "footstepd/\(name)")
        }
    }

    static func status(_ database: PostgresServer) async throws -> [SensorStatus] {
        var logger = Logger(label: "status")
        logger.logLevel = .critical
        let store = FleetStore(
            client: PostgresClient(configuration: try FleetStore.configuration(url: database.url)), logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.client.run() }
            defer { group.cancelAll() }
            return try await store.status(now: referenceStart.addingTimeInterval(3600))
        }
    }

    @Test func sensorsArriveOnceTheirChainsVerifyAndALostEventIsABreak() async throws {
        let broker = try MosquittoBroker(persistence: true)
        try broker.start()
        let database = try PostgresServer()
        try database.start()
        var collector = try await RunningCollector(broker: broker, database: database)
        #expect(await waitUntil(10) { (try? database.psql("SELECT count(*) FROM sensor")) == "0" })
        try await Task.sleep(for: .milliseconds(1500))  // subscribed, and the session saved by the broker

        let sensors = try ["flat-1", "flat-2", "flat-3"].map(Sensor.init)
        var publishers = try sensors.map { try $0.publisher(broker) }
        var stored: [String: [Int64]] = [:]
        for (index, sensor) in sensors.enumerated() {
            stored[sensor.name] = try storeSteps(sensor.store, session: sensor.session, first: 0, count: 20 + index)
        }
        #expect(await waitUntil(20) { (try? database.psql("SELECT count(*) FROM event")) == "63" })

        // The collector goes away; what is published meanwhile waits at the broker for its session.
        await collector.stop()
        for sensor in sensors {
            stored[sensor.name]! += try storeSteps(sensor.store, session: sensor.session, first: 100, count: 5)
        }
        try await Task.sleep(for: .milliseconds(500))
        collector = try await RunningCollector(broker: broker, database: database)
        #expect(await waitUntil(20) { (try? database.psql("SELECT count(*) FROM event")) == "78" })
        for sensor in sensors {
            let ids = try database.psql("SELECT id FROM event WHERE sensor = '\(sensor.name)' ORDER BY id")
            #expect(ids.split(separator: "\n").compactMap { Int64($0) } == stored[sensor.name]!)
        }

        // A session deleted on flat-2: its events are marked, not lost, and the chain still verifies.
        try sensors[1].store.endSession(sensors[1].session, at: referenceStart.addingTimeInterval(600))
        try sensors[1].store.deleteSession(sensors[1].session, reason: "wrong flat")
        #expect(await waitUntil(10) {
            (try? database.psql("SELECT count(*) FROM event WHERE sensor = 'flat-2' AND deleted_by IS NOT NULL")) == "26"
        })

        // flat-3 loses a message (its outbox row vanishes before it is sent): the next event breaks the chain.
        for publisher in publishers { await publisher.stop() }
        let lost = try storeSteps(sensors[2].store, session: sensors[2].session, first: 200, count: 3)
        try sensors[2].store.removeFromOutbox(
            try sensors[2].store.outbox().filter { entry in
                if case let .event(event) = entry.item { return event.id == lost[1] }
                return false
            }.map(\.id))
        publishers = [try sensors[2].publisher(broker)]
        #expect(await waitUntil(10) { (try? database.psql("SELECT count(*) FROM chain_break")) == "1" })
        #expect(try database.psql("SELECT event FROM chain_break") == "\(lost[2])")

        let status = try await Self.status(database)
        #expect(status.map(\.name) == ["flat-1", "flat-2", "flat-3"])
        #expect(status.map(\.chainBreaks) == [0, 0, 1])
        #expect(status[0].chainVerifiedFrom == stored["flat-1"]!.first && status[0].chainVerifiedTo == stored["flat-1"]!.last)
        // flat-1's publisher stopped (it said offline); flat-3's runs.
        #expect(status.map(\.availability) == ["offline", "offline", "online"])
        // The command line says the same.
        let printed = try BuiltProduct.run("footstep-collector", ["status", "--database", database.url, "--json"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.contains("\"chain_breaks\" : 1") && printed.stdout.contains("\"name\" : \"flat-3\""))
        let table = try BuiltProduct.run("footstep-collector", ["status", "--database", database.url])
        #expect(table.stdout.contains("flat-3") && table.stdout.contains("1 BREAK"))
        let metrics = try BuiltProduct.run("footstep-collector", ["status", "--database", database.url, "--prometheus"])
        #expect(metrics.stdout.contains(#"footstep_collector_sensor_chain_breaks{sensor="flat-3"} 1"#), "\(metrics.stdout)")
        #expect(metrics.stdout.contains(#"footstep_collector_sensor_online{sensor="flat-1"} 0"#))
        let wrong = try BuiltProduct.run("footstep-collector", ["status", "--database", "mysql://x"])
        #expect(wrong.status != 0 && wrong.stderr.contains("postgres://user[:password]@host[:port]/database"))

        for publisher in publishers { await publisher.stop() }
        await collector.stop()
    }

    /// 50 sensors into one broker and one database: every event arrives once and every chain verifies. The
    /// rate is printed (a figure for docs/fleet.md), not asserted.
    @Test func fiftySensorsArriveOnceAndEveryChainVerifies() async throws {
        let broker = try MosquittoBroker(persistence: true)
        try broker.start()
        let database = try PostgresServer()
        try database.start()
        let collector = try await RunningCollector(broker: broker, database: database)
        #expect(await waitUntil(10) { (try? database.psql("SELECT count(*) FROM sensor")) == "0" })
        try await Task.sleep(for: .milliseconds(1500))
        let sensors = try (1...50).map { try Sensor("flat-\($0)") }
        let perSensor = 20
        for sensor in sensors { try storeSteps(sensor.store, session: sensor.session, first: 0, count: perSensor) }
        let started = ContinuousClock.now
        let publishers = try sensors.map { try $0.publisher(broker) }
        let total = sensors.count * perSensor
        #expect(await waitUntil(60) { (try? database.psql("SELECT count(*) FROM event")) == "\(total)" })
        let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - started).components.seconds)
        print("fleet: \(total) events of \(sensors.count) sensors collected in \(String(format: "%.1f", seconds)) s")
        #expect(try database.psql("SELECT count(DISTINCT (sensor, id)) FROM event") == "\(total)")
        let status = try await Self.status(database)
        #expect(status.count == 50)
        #expect(status.allSatisfy { $0.chainBreaks == 0 && $0.chainVerifiedFrom == 1 && $0.chainVerifiedTo == Int64(perSensor) })
        for publisher in publishers { await publisher.stop() }
        await collector.stop()
    }
}
