import FootstepCore
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// footstepd with `[mqtt]` on (a username and a password file), publishing to a real Mosquitto broker that a real
/// `mosquitto_sub` (a persistent session, QoS 1) reads: the broker killed during a recording, the network to it cut,
/// footstepd SIGKILLed once, and afterwards every
/// stored event and revision has reached the subscriber, in order, none missing.
@Suite("footstepd on MQTT", .serialized)
struct DaemonMQTTTests {
    static let subscriberPath = "/usr/bin/mosquitto_sub"
    static var available: Bool {
        DaemonTestSupport.footstepdPath != nil && MosquittoBroker.isAvailable
            && FileManager.default.isExecutableFile(atPath: subscriberPath)
    }

    @Test(.enabled(if: available, "footstepd, mosquitto or mosquitto_sub is missing"))
    func everyStoredEventReachesTheSubscriberThroughABrokerOutageAndAKill() async throws {
        let directory = try TemporaryDirectory()
        let broker = try MosquittoBroker(users: ["footstepd": "fence-post 17", "collector": "c"], persistence: true)
        try broker.start()
        let received = directory.appending("received.txt")
        let subscriber = try Self.subscribe(broker: broker, to: ["footstepd/t/#", "homeassistant/#"], output: received)
        defer { Subprocess.end(subscriber) }
        // Subscribed, and the session saved by the broker's 1 s autosave.
        try await Task.sleep(for: .milliseconds(1500))
        // The password in a file of its own, never in the configuration.
        let passwordFile = directory.appending("mqtt-password")
        try "fence-post 17\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        // footstepd reaches the broker through a link the test can cut.
        let link = try TCPProxy(to: broker.port)
        defer { link.stop() }
        let configuration = directory.appending("footstepd.toml")
        try """
            [mqtt]
            enabled = true
            url = "mqtt://127.0.0.1:\(link.port)"
            keepalive = "5s"
            username = "footstepd"
            password_file = "\(passwordFile)"
            client_id = "footstepd-t"
            topic_prefix = "footstepd/t"
            home_assistant = true
            accept_commands = true

            [levels]
            calibration_offset = 100
            """.write(toFile: configuration, atomically: true, encoding: .utf8)
        let state = directory.appending("state")
        let common = ["--config", configuration, "--state-dir", state, "--socket", directory.appending("control.sock")]

        let pid = try DaemonTestSupport.spawnReadyFootstepd(
            common + ["--source", "demo:mixed:seed=3,duration=3600", "--speed", "8"], in: directory.path)
        let socket = directory.appending("control.sock")
        #expect(await waitUntil(10) { Self.mqttStatus(socket)?["connected"] as? Bool == true })
        // Commands: a diary mark with its text, a pause and a resume.
        try Self.publish(broker: broker, topic: "footstepd/t/command/mark", message: "stomping again")
        try Self.publish(broker: broker, topic: "footstepd/t/command/pause", message: "")
        #expect(await waitUntil(10) { Self.status(socket)?["state"] as? String == "paused" })
        try Self.publish(broker: broker, topic: "footstepd/t/command/resume", message: "")
        #expect(await waitUntil(10) { Self.status(socket)?["state"] as? String == "recording" })
        // The broker killed for 30 s, twice: footstepd's retries back off (1 s doubling) and still find it.
        for outage in 0..<2 {
            let killed = Date()
            broker.kill()
            // Recording goes on, the outbox fills, and status says why nothing is published.
            #expect(await waitUntil(10) { Self.mqttStatus(socket)?["connected"] as? Bool == false })
            #expect(await waitUntil(10) { (Self.mqttStatus(socket)?["outbox_depth"] as? Int ?? 0) > 0 })
            let away = Self.mqttStatus(socket)
            #expect((away?["problem"] as? String)?.contains("127.0.0.1:\(link.port)") == true)
            if outage == 0 {
                let metrics = try Subprocess.run("/usr/bin/curl", ["-sf", "--unix-socket", socket, "http://localhost/metrics"])
                #expect(metrics.stdout.contains("footstepd_mqtt_connected 0"))
            }
            try await Task.sleep(for: .seconds(max(0, 30 - Date().timeIntervalSince(killed))))
            try broker.start()
            #expect(await waitUntil(40) { Self.mqttStatus(socket)?["connected"] as? Bool == true })
        }
        // The network cut: no reset, no FIN. footstepd finds out by its keepalive (5 s), records on, and
        // keeps what it could not publish; once the link is back it reconnects.
        link.cut()
        #expect(await waitUntil(20) { Self.mqttStatus(socket)?["connected"] as? Bool == false })
        #expect(await waitUntil(10) { (Self.mqttStatus(socket)?["outbox_depth"] as? Int ?? 0) > 0 })
        link.restore()
        #expect(await waitUntil(20) { Self.mqttStatus(socket)?["connected"] as? Bool == true })
        try await Task.sleep(for: .milliseconds(500))
        kill(pid, SIGKILL)
        #expect(DaemonTestSupport.wait(pid) == 128 + SIGKILL)

        let last = try DaemonTestSupport.runFootstepd(common + ["--source", "demo:walking:seed=9,duration=20", "--speed", "10"])
        #expect(last.status == 0, "\(last.standardError)")

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let stored = try database.sessions().flatMap { summary in
            try DaemonTestSupport.events(database, session: summary.session.id!)
        }.sorted { $0.id! < $1.id! }
        let revisions = try database.revisions(ofEvents: stored.map { $0.id! })
        #expect(stored.count > 10)
        #expect(await waitUntil(20) { Self.ids(in: received, topic: "footstepd/t/event").count >= stored.count })
        // Every event and revision once, none missing (a message in flight when the broker died may come after
        // later ones: OutboxPublisherTests.aBrokerKilledTwiceLosesNothing).
        #expect(Self.ids(in: received, topic: "footstepd/t/event").sorted() == stored.map { $0.id! })
        #expect(Self.ids(in: received, topic: "footstepd/t/revision").sorted() == revisions.map { $0.id! }.sorted())
        // Every rule exceeded (the levels are calibrated: the standard rules judge them), each once.
        let exceedances = try database.exceedances().map { $0.id! }
        #expect(!exceedances.isEmpty)
        #expect(await waitUntil(20) { Self.ids(in: received, topic: "footstepd/t/exceedance").count >= exceedances.count })
        #expect(Self.ids(in: received, topic: "footstepd/t/exceedance").sorted() == exceedances)
        #expect(try database.outboxHealth().depth == 0)
        #expect(try database.diaryEntries().map(\.text) == ["stomping again"])
        let lines = Self.lines(received)
        // Home Assistant found the device, and the clean stop said offline.
        #expect(lines.contains { $0.hasPrefix("homeassistant/binary_sensor/") && $0.contains("microphone_problem") })
        #expect(lines.last { $0.hasPrefix("footstepd/t/availability ") } == "footstepd/t/availability offline")
        #expect(lines.contains { $0.hasPrefix("footstepd/t/state ") && $0.contains("\"recording\":true") })
    }

    /// A reload (SIGHUP) that changes `[mqtt]` takes effect without a restart: the old publisher says offline and
    /// the new one publishes under its prefix; turned off, nothing more is published or queued.
    @Test(.enabled(if: available, "footstepd, mosquitto or mosquitto_sub is missing"))
    func aReloadThatChangesMQTTSwitchesThePublisher() async throws {
        let directory = try TemporaryDirectory()
        let broker = try MosquittoBroker(users: ["footstepd": "p", "collector": "c"])
        try broker.start()
        let received = directory.appending("received.txt")
        let subscriber = try Self.subscribe(broker: broker, to: ["footstepd/#"], output: received)
        defer { Subprocess.end(subscriber) }
        try await Task.sleep(for: .milliseconds(500))
        let passwordFile = directory.appending("mqtt-password")
        try "p\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let configuration = directory.appending("footstepd.toml")
        func write(prefix: String, enabled: Bool) throws {
            try """
                [mqtt]
                enabled = \(enabled)
                url = "mqtt://127.0.0.1:\(broker.port)"
                username = "footstepd"
                password_file = "\(passwordFile)"
                topic_prefix = "\(prefix)"
                """.write(toFile: configuration, atomically: true, encoding: .utf8)
        }
        try write(prefix: "footstepd/a", enabled: true)
        let socket = directory.appending("control.sock")
        let pid = try DaemonTestSupport.spawnReadyFootstepd(
            ["--config", configuration, "--state-dir", directory.appending("state"), "--socket", socket,
             "--source", "demo:walking:seed=5,duration=3600", "--speed", "4"], in: directory.path)
        defer { kill(pid, SIGKILL); _ = DaemonTestSupport.wait(pid) }
        #expect(await waitUntil(10) { !Self.ids(in: received, topic: "footstepd/a/event").isEmpty })

        try write(prefix: "footstepd/b", enabled: true)
        kill(pid, SIGHUP)
        #expect(await waitUntil(10) { Self.lines(received).contains("footstepd/a/availability offline") })
        #expect(await waitUntil(10) { !Self.ids(in: received, topic: "footstepd/b/event").isEmpty })
        #expect(Self.mqttStatus(socket)?["connected"] as? Bool == true)

        try write(prefix: "footstepd/b", enabled: false)
        kill(pid, SIGHUP)
        #expect(await waitUntil(10) { Self.lines(received).contains("footstepd/b/availability offline") })
        #expect(await waitUntil(10) { Self.mqttStatus(socket) == nil })
        let published = Self.ids(in: received, topic: "footstepd/b/event").count
        try await Task.sleep(for: .seconds(2))
        #expect(Self.ids(in: received, topic: "footstepd/b/event").count == published)
        #expect(Self.status(socket)?["state"] as? String == "recording")
    }

    /// `mosquitto_sub` with a persistent session (`-c`) at QoS 1, writing `topic payload` lines to `output`.
    static func subscribe(broker: MosquittoBroker, to filters: [String], output: String) throws -> pid_t {
        try Subprocess.spawn(
            subscriberPath,
            ["-h", "127.0.0.1", "-p", "\(broker.port)", "-u", "collector", "-P", "c", "-i", "collector", "-c", "-q", "1", "-v"]
                + filters.flatMap { ["-t", $0] }, output: output)
    }

    /// `GET /v1/status`.
    static func status(_ socket: String) -> [String: Any]? {
        guard let result = try? Subprocess.run("/usr/bin/curl", ["-sf", "--unix-socket", socket, "http://localhost/v1/status"])
        else { return nil }
        return try? JSONSerialization.jsonObject(with: result.output) as? [String: Any]
    }

    static func mqttStatus(_ socket: String) -> [String: Any]? { status(socket)?["mqtt"] as? [String: Any] }

    /// `mosquitto_pub` at QoS 1.
    static func publish(broker: MosquittoBroker, topic: String, message: String) throws {
        let result = try Subprocess.run(
            "/usr/bin/mosquitto_pub",
            ["-h", "127.0.0.1", "-p", "\(broker.port)", "-u", "collector", "-P", "c", "-q", "1", "-t", topic, "-m", message])
        #expect(result.status == 0, "\(result.stderr)")
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The ids of the messages on `topic`, in arrival order, each once.
    static func ids(in path: String, topic: String) -> [Int64] {
        var seen = Set<Int64>()
        return lines(path).compactMap { line -> Int64? in
            guard line.hasPrefix(topic + " "),
                let object = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(topic.count + 1).utf8))
                    as? [String: Any],
                let id = (object["id"] as? NSNumber)?.int64Value, seen.insert(id).inserted
            else { return nil }
            return id
        }
    }
}
