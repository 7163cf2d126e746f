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

        init(broker: MosquittoBroker, database: PostgresServer, chainHold: TimeInterval = 2) async throws {
            var logger = Logger(label: "collector-test")
            logger.logLevel = .critical
            store = FleetStore(
                client: PostgresClient(configuration: try FleetStore.configuration(url: database.url)), logger: logger,
                chainHold: chainHold)
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

        /// With `rules`, its levels calibrated and the rules checked as it stores steps.
        init(_ name: String, rules: [ReportRule] = []) throws {
            self.name = name
            directory = try TemporaryDirectory()
            let (plain, session) = try makeStore(in: directory)
            self.session = session
            guard !rules.isEmpty else {
                store = plain
                return
            }
            try plain.addCalibration(
                measuredAt: referenceStart.addingTimeInterval(-60), offsetDB: 90, method: "calibrator", reference: "test")
            store = plain.checkingRules(
                RuleWatch(rules: rules, quietHours: DailyWindow(start: 23 * 60, end: 7 * 60), zone: .utc))
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

        // flat-1 checks a rule that each of its steps exceeds.
        let sensors = try [
            Sensor("flat-1", rules: [ReportRule(name: "loud step", metric: .lafmax, threshold: 45)]), Sensor("flat-2"),
            Sensor("flat-3"),
        ]
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
        // Its exceedances arrive too, each once.
        let exceeded = try sensors[0].store.exceedances().map { "\($0.id!)" }.joined(separator: "\n")
        #expect(exceeded.split(separator: "\n").count == 25)
        #expect(await waitUntil(10) {
            (try? database.psql("SELECT id FROM exceedance WHERE sensor = 'flat-1' AND period = 'event' ORDER BY id")) == exceeded
        })
        #expect(try database.psql("SELECT count(*) FROM exceedance WHERE sensor <> 'flat-1'") == "0")

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
        // The event after the hole waits for the lost one (it could still arrive) ...
        #expect(await waitUntil(10) {
            (try? database.psql("SELECT chain_hole_since IS NOT NULL FROM sensor WHERE name = 'flat-3'")) == "t"
        })
        #expect(try database.psql("SELECT count(*) FROM chain_break") == "0")
        // ... and once the hold is over, the sensor's next message declares the break, at that event.
        try await Task.sleep(for: .milliseconds(2500))
        stored["flat-3"]! += lost + (try storeSteps(sensors[2].store, session: sensors[2].session, first: 300, count: 1))
        #expect(await waitUntil(10) { (try? database.psql("SELECT count(*) FROM chain_break")) == "1" })
        #expect(try database.psql("SELECT event FROM chain_break") == "\(lost[2])")

        let status = try await Self.status(database)
        #expect(status.map(\.name) == ["flat-1", "flat-2", "flat-3"])
        #expect(status.map(\.chainBreaks) == [0, 0, 1])
        #expect(status[0].chainVerifiedFrom == stored["flat-1"]!.first && status[0].chainVerifiedTo == stored["flat-1"]!.last)
        #expect(status[2].chainVerifiedTo == stored["flat-3"]!.last && status[2].chainWaitingSince == nil)
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

    /// A sensor's messages published by hand, in the order given (`order`: indices into `messages`), each
    /// acknowledged by the broker before the next is sent.
    static func publish(_ messages: [(topic: String, payload: [UInt8])], order: [Int], to broker: MosquittoBroker) async throws {
        let client = try MQTTClient(
            options: MQTTClientOptions(broker: MQTTBroker(url: broker.url())!, clientId: "replay", cleanSession: true))
        client.start()
        defer { client.stop() }
        var events = client.events.makeAsyncIterator()
        while let event = await events.next() {
            if case .connected = event { break }
        }
        for index in order {
            let mid = try client.publish(MQTTMessage(topic: messages[index].topic, payload: messages[index].payload))
            while let event = await events.next() {
                if case .acknowledged(mid) = event { break }
            }
        }
    }

    /// A message in flight when the broker died arrives after later ones: the events after it wait for it and no
    /// break is declared. A hole still open after the hold is a break, and the event arriving after all fills it.
    @Test func anEventArrivingLateIsWaitedForAndFillsItsBreak() async throws {
        let broker = try MosquittoBroker(persistence: true)
        try broker.start()
        let database = try PostgresServer()
        try database.start()
        let collector = try await RunningCollector(broker: broker, database: database, chainHold: 2)
        #expect(await waitUntil(10) { (try? database.psql("SELECT count(*) FROM sensor")) == "0" })
        try await Task.sleep(for: .milliseconds(1500))

        let sensor = try Sensor("flat-9")
        let ids = try storeSteps(sensor.store, session: sensor.session, first: 0, count: 7)
        let messages = try sensor.store.outbox().compactMap { entry -> (topic: String, payload: [UInt8])? in
            guard case .event = entry.item, let message = MQTTPayloads.message(for: entry) else { return nil }
            return ("footstepd/flat-9/" + message.topic, message.payload)
        }
        #expect(messages.count == 7)

        // 1, 2, 4, 3: 4 waits for 3, and no break is recorded.
        try await Self.publish(messages, order: [0, 1, 3], to: broker)
        #expect(await waitUntil(10) {
            (try? database.psql("SELECT chain_last_event, chain_hole_since IS NOT NULL FROM sensor")) == "\(ids[1])|t"
        })
        var status = try await Self.status(database)
        #expect(status.first?.chainWaitingSince != nil && status.first?.chainBreaks == 0)
        let table = try BuiltProduct.run("footstep-collector", ["status", "--database", database.url])
        #expect(table.stdout.contains("waiting for the events after \(ids[1])"), "\(table.stdout)")
        try await Self.publish(messages, order: [2], to: broker)
        #expect(await waitUntil(10) {
            (try? database.psql("SELECT chain_last_event, chain_hole_since IS NULL FROM sensor")) == "\(ids[3])|t"
        })
        #expect(try database.psql("SELECT count(*) FROM chain_break") == "0")

        // 5, 7, then nothing for longer than the hold: the next message of the sensor declares the break at 7.
        try await Self.publish(messages, order: [4, 6], to: broker)
        try await Task.sleep(for: .milliseconds(2500))
        try await Self.publish(
            [("footstepd/flat-9/availability", Array("online".utf8))], order: [0], to: broker)
        #expect(await waitUntil(10) { (try? database.psql("SELECT event FROM chain_break")) == "\(ids[6])" })
        status = try await Self.status(database)
        #expect(status.first?.chainBreaks == 1 && status.first?.chainVerifiedTo == ids[6])
        // 6 arrives after all: the break is filled, not counted, and kept with when it was filled.
        try await Self.publish(messages, order: [5], to: broker)
        #expect(await waitUntil(10) {
            (try? database.psql("SELECT filled_at IS NOT NULL FROM chain_break")) == "t"
        })
        status = try await Self.status(database)
        #expect(status.first?.chainBreaks == 0 && status.first?.chainWaitingSince == nil)
        #expect(try database.psql("SELECT count(*) FROM event") == "7")
        await collector.stop()
    }
}
