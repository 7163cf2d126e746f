import ArgumentParser
import FootstepCollector
import FootstepCore
import FootstepMQTT
import Foundation
import Logging
import PostgresNIO
import UnixSignals

@main
struct FootstepCollectorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "footstep-collector",
        abstract: "Collects a fleet of footstepd sensors from an MQTT broker into PostgreSQL.",
        discussion: """
            Every footstepd with [mqtt] enabled publishes its events, revisions, deletions, sessions, gaps and
            level minutes under footstepd/<hostname>/. The collector subscribes to them all with a persistent
            session, so what is published while it is down waits at the broker, stores them idempotently, and
            verifies each sensor's hash chain as its events arrive: a missing or altered event is a chain break,
            logged as critical and counted in `status`. An event that arrives before the ones it follows (after a
            broker restart) waits --chain-hold seconds for them before the hole counts as a break.

              footstep-collector run --broker mqtt://broker.lan --database postgres://fleet@db.lan/fleet
              footstep-collector status --database postgres://fleet@db.lan/fleet
            """,
        subcommands: [Run.self, Status.self])

    struct DatabaseOption: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("postgres://user[:password]@host[:port]/database", valueName: "URL"))
        var database: String

        func store(logger: Logger, chainHold: TimeInterval = FleetStore.defaultChainHold) throws -> FleetStore {
            FleetStore(
                client: PostgresClient(configuration: try FleetStore.configuration(url: database)), logger: logger,
                chainHold: chainHold)
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Collect until SIGTERM.")

        @Option(name: .long, help: ArgumentHelp("mqtt://host[:port] or mqtts://host[:port]", valueName: "URL"))
        var broker: String
        @OptionGroup var database: DatabaseOption
        @Option(name: .long, help: "The sensors' topic prefix without their names.")
        var prefix = "footstepd"
        @Option(name: .long, help: "The MQTT client id: the broker keeps this session's messages while it is away.")
        var clientId = "footstep-collector"
        @Option(name: .long) var username: String?
        @Option(name: .long, help: ArgumentHelp("A file holding the broker password.", valueName: "FILE"))
        var passwordFile: String?
        @Option(name: .long, help: ArgumentHelp("PEM CA file for mqtts://.", valueName: "FILE"))
        var caFile: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "How long an event that does not follow its sensor's chain waits for the events before it (they can "
                    + "arrive late after a broker restart) before the hole is a chain break.", valueName: "SECONDS"))
        var chainHold: Double = FleetStore.defaultChainHold

        func validate() throws {
            guard chainHold >= 0, chainHold.isFinite else {
                throw ValidationError("--chain-hold must be 0 or more seconds, not \(chainHold).")
            }
        }

        func run() async throws {
            var logger = Logger(label: "footstep-collector")
            logger.logLevel = .info
            guard let address = MQTTBroker(url: broker) else {
                throw ValidationError(CollectorError.invalidBrokerURL(broker).description)
            }
            let password = try passwordFile.map { file in
                String(try String(contentsOfFile: file, encoding: .utf8).prefix { $0 != "\n" && $0 != "\r" })
            }
            let client = try MQTTClient(
                options: MQTTClientOptions(
                    broker: address, clientId: clientId, username: username, password: password, caFile: caFile,
                    cleanSession: false))
            let store = try database.store(logger: logger, chainHold: chainHold)
            let collector = Collector(client: client, store: store, prefix: prefix, logger: logger)
            let collecting = Task { try await collector.runWithDatabase() }
            let signals = Task {
                for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { break }
                logger.notice("stopping")
                collecting.cancel()
            }
            defer { signals.cancel() }
            try await collecting.value
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Each sensor: last seen, recording, gaps, events, chain.")

        @OptionGroup var database: DatabaseOption
        @Flag(name: .long, help: "JSON instead of a table.") var json = false
        @Flag(
            name: .long,
            help: "Prometheus' text format instead of a table (for node_exporter's textfile collector).")
        var prometheus = false

        func run() async throws {
            var logger = Logger(label: "footstep-collector")
            logger.logLevel = .warning
            let store = try database.store(logger: logger)
            let sensors = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await store.client.run() }
                try await store.migrate()
                let sensors = try await store.status()
                group.cancelAll()
                return sensors
            }
            if prometheus {
                print(SensorMetrics.render(sensors), terminator: "")
                return
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(sensors), as: UTF8.self))
                return
            }
            print("sensor\tlast seen\trecording\tgaps 24h\tevents today\tchain")
            for s in sensors {
                var chain = s.chainBreaks > 0
                    ? "\(s.chainBreaks) BREAK\(s.chainBreaks == 1 ? "" : "S")"
                    : "verified \(s.chainVerifiedFrom.map { "from \($0) " } ?? "")to \(s.chainVerifiedTo)"
                if let since = s.chainWaitingSince {
                    chain += ", waiting for the events after \(s.chainVerifiedTo) since \(MQTTPayloads.isoTime(since))"
                }
                let recording = s.recording.map { $0 ? "yes" : "no" } ?? "?"
                print("\(s.name)\t\(MQTTPayloads.isoTime(s.lastSeen))\t\(recording)\(s.availability == "offline" ? " (offline)" : "")\t\(s.gapsLast24Hours)\t\(s.eventsToday)\t\(chain)")
            }
        }
    }
}
