import FootstepMQTT
import FootstepStore
import FootstepTesting
import Foundation
import Synchronization
import Testing

/// The outbox published to a real Mosquitto broker: in order, once acknowledged removed, and nothing lost when
/// the broker goes away or the publisher is killed.
@Suite("MQTT publishing through a real broker", .enabled(if: MosquittoBroker.isAvailable), .serialized)
struct OutboxPublisherTests {
    @Test func everyStoredRecordArrivesInOrderAndLeavesTheOutbox() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let directory = try TemporaryDirectory()
        let (store, session) = try makeStore(in: directory)
        let subscriber = try Subscriber(url: broker.url(), filter: "footstepd/test/#")
        #expect(await subscriber.waitSubscribed())
        let publisher = try RunningPublisher(store: store, url: broker.url())
        let ids = try storeSteps(store, session: session, first: 0, count: 150)
        try store.appendLevels([
            LevelMinuteRecord(
                sessionId: session, startedAt: referenceStart, laeq: 31.5, lceq: 44, lafMax: 52.25, lafMin: 25, la10: 35,
                la90: 27.5)
        ])
        #expect(await waitUntil(20) { subscriber.ids(on: "footstepd/test/levels").count == 1 })
        #expect(subscriber.ids(on: "footstepd/test/event") == ids)
        #expect(subscriber.ids(on: "footstepd/test/session") == [session])
        #expect(await waitUntil(5) { (try? store.outboxHealth().depth) == 0 })

        // An event's payload carries its chain.
        let stored = try store.events(ids: [ids[1]])[0]
        let message = try #require(subscriber.messages.first { $0.topic == "footstepd/test/event" && $0.text.contains("\"id\":\(ids[1]),") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
        #expect(object["hash"] as? String == stored.hash)
        #expect(object["previous_hash"] as? String == stored.previousHash)
        #expect(object["type"] as? String == "heel_strike")
        #expect(object["lafmax"] as? Double == 48)
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)

        await publisher.stop()
        // A clean stop says offline (retained), which the will would have said had it died.
        #expect(await waitUntil(5) { subscriber.messages.last { $0.topic == "footstepd/test/availability" }?.text == "offline" })
        subscriber.stop()
    }

    @Test func aBrokerKilledTwiceLosesNothing() async throws {
        let broker = try MosquittoBroker(persistence: true)
        try broker.start()
        let directory = try TemporaryDirectory()
        let (store, session) = try makeStore(in: directory)
        let subscriber = try Subscriber(url: broker.url(), filter: "footstepd/test/event")
        #expect(await subscriber.waitSubscribed())
        // The broker saves the subscriber's session within its 1 s autosave.
        try await Task.sleep(for: .milliseconds(1500))
        let publisher = try RunningPublisher(store: store, url: broker.url())
        var ids = try storeSteps(store, session: session, first: 0, count: 20)
        #expect(await waitUntil(10) { subscriber.ids(on: "footstepd/test/event").count == ids.count })
        for outage in 0..<2 {
            broker.kill()
            // Recording goes on while the broker is away: the rows wait in the outbox.
            ids += try storeSteps(store, session: session, first: 100 * (outage + 1), count: 30)
            try await Task.sleep(for: .milliseconds(800))
            #expect(try store.outboxHealth().depth >= 30)
            try broker.start()
            #expect(await waitUntil(20) { subscriber.ids(on: "footstepd/test/event").count == ids.count })
        }
        // Every row once (deduplicated by id), none missing. Sent in order; delivered in order except that a
        // message in flight when the broker died may reach the subscriber after later ones (QoS 1 across a broker
        // crash: one clean-clone run got 21 after 50), so the order is checked up to the first outage.
        let received = subscriber.ids(on: "footstepd/test/event")
        #expect(received.sorted() == ids)
        #expect(Array(received.prefix(20)) == Array(ids.prefix(20)))
        #expect(await waitUntil(5) { (try? store.outboxHealth().depth) == 0 })
        #expect(publisher.publisher.health.connected)
        await publisher.stop()
        subscriber.stop()
    }

    @Test func rowsLeftByAKilledPublisherArePublishedByTheNextOne() async throws {
        let broker = try MosquittoBroker()
        let directory = try TemporaryDirectory()
        let (store, session) = try makeStore(in: directory)
        // The first publisher never reaches a broker, and is abandoned without finishing (footstepd SIGKILLed).
        let first = try RunningPublisher(store: store, url: broker.url())
        let ids = try storeSteps(store, session: session, first: 0, count: 25)
        #expect(await waitUntil(5) { first.publisher.health.problem != nil })
        #expect(first.publisher.health.connected == false)
        first.task.cancel()

        try broker.start()
        let subscriber = try Subscriber(url: broker.url(), filter: "footstepd/test/event")
        #expect(await subscriber.waitSubscribed())
        let second = try RunningPublisher(store: store, url: broker.url())
        #expect(await waitUntil(10) { subscriber.ids(on: "footstepd/test/event") == ids })
        #expect(await waitUntil(5) { (try? store.outboxHealth().depth) == 0 })
        await second.stop()
        subscriber.stop()
    }

    /// A command is acted on only when commands are accepted; otherwise it is refused and counted (and logged).
    @Test func aCommandIsActedOnWhenAcceptedAndRefusedWhenNot() async throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let directory = try TemporaryDirectory()
        let (store, _) = try makeStore(in: directory)
        func send(_ topic: String, _ text: String) throws {
            let result = try Subprocess.run(
                "/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", topic, "-m", text])
            #expect(result.status == 0, "\(result.stderr)")
        }

        /// Sends the command every 200 ms until `arrived` (one sent before the subscription is granted is missed).
        func sendUntil(_ arrived: () -> Bool) async throws -> Bool {
            for _ in 0..<50 {
                try send("footstepd/test/command/mark", "stomping again")
                if await waitUntil(0.2, arrived) { return true }
            }
            return false
        }

        let refusing = try RunningPublisher(store: store, url: broker.url())
        #expect(try await sendUntil { refusing.publisher.health.refusedCommands >= 1 })
        await refusing.stop()

        let received = Mutex<[(MQTTCommand, String)]>([])
        let accepting = try RunningPublisher(store: store, url: broker.url()) { command, topic in
            received.withLock { $0.append((command, topic)) }
        }
        #expect(try await sendUntil { received.withLock { !$0.isEmpty } })
        #expect(received.withLock { $0.first?.1 } == "footstepd/test/command/mark")
        #expect(received.withLock { $0.first?.0 } == .mark(text: "stomping again"))
        #expect(accepting.publisher.health.refusedCommands == 0)
        await accepting.stop()
    }

    @Test func aWrongPasswordIsReportedAndNothingIsLost() async throws {
        let broker = try MosquittoBroker(users: ["footstepd": "right horse battery"])
        try broker.start()
        let directory = try TemporaryDirectory()
        let (store, session) = try makeStore(in: directory)
        let publisher = try RunningPublisher(
            store: store, url: broker.url(), username: "footstepd", password: "wrong horse")
        try storeSteps(store, session: session, first: 0, count: 5)
        _ = await waitUntil(10) { publisher.publisher.health.problem?.contains("not authorised") == true }
        let problem = publisher.publisher.health.problem ?? ""
        #expect(problem.contains("not authorised"))
        #expect(try store.outboxHealth().depth == 6)  // the session and its five events
        await publisher.stop()
    }
}

/// TLS (`mqtts://`) against a Mosquitto listener with a certificate signed by a CA of the test's own.
@Suite("MQTT over TLS", .enabled(if: MosquittoBroker.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
struct MQTTTLSTests {
    /// A CA, and a certificate for 127.0.0.1 signed by it, in `directory`.
    static func certificates(in directory: TemporaryDirectory) throws -> (ca: String, certificate: String, key: String) {
        let ca = directory.appending("ca.crt")
        let certificate = directory.appending("server.crt")
        let key = directory.appending("server.key")
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory.appending("ca.key"), "-out", ca,
             "-subj", "/CN=footstepd test CA", "-days", "2"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", directory.appending("server.csr"),
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
            ["x509", "-req", "-in", directory.appending("server.csr"), "-CA", ca, "-CAkey", directory.appending("ca.key"),
             "-CAcreateserial", "-out", certificate, "-days", "2", "-copy_extensions", "copy"],
        ]
        for step in steps {
            let result = try Subprocess.run("/usr/bin/openssl", step)
            guard result.status == 0 else { throw Subprocess.LaunchError(description: "openssl: \(result.stderr)") }
        }
        return (ca, certificate, key)
    }

    @Test func recordsArriveOverTLSAndAnUnknownCAIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let files = try Self.certificates(in: directory)
        let broker = try MosquittoBroker(users: ["footstepd": "s3cret"], tls: files)
        try broker.start()
        let (store, session) = try makeStore(in: directory)
        let ids = try storeSteps(store, session: session, first: 0, count: 10)

        // A CA that did not sign the broker's certificate: refused, and said so.
        let other = try TemporaryDirectory()
        let stranger = try Self.certificates(in: other)
        let refused = try RunningPublisher(
            store: store, url: broker.url(tls: true), username: "footstepd", password: "s3cret", caFile: stranger.ca)
        _ = await waitUntil(10) { refused.publisher.health.problem != nil }
        #expect(refused.publisher.health.connected == false)
        // libmosquitto reports this one from its loop, not its disconnect callback; OpenSSL's reason comes with it.
        #expect(refused.publisher.health.problem?.contains("certificate verify failed") == true)
        await refused.stop()
        #expect(try store.outboxHealth().depth == 11)

        let subscriber = try Subscriber(
            url: broker.url(tls: true), filter: "footstepd/test/event", username: "footstepd", password: "s3cret",
            caFile: files.ca)
        #expect(await subscriber.waitSubscribed())
        let publisher = try RunningPublisher(
            store: store, url: broker.url(tls: true), username: "footstepd", password: "s3cret", caFile: files.ca)
        #expect(await waitUntil(10) { subscriber.ids(on: "footstepd/test/event") == ids })
        #expect(publisher.publisher.health.connected)
        await publisher.stop()
        subscriber.stop()
    }
}
