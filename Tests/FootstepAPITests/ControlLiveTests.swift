import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Testing

/// The live NDJSON streams: content, the subscriber cap, and a subscriber that
/// stops reading.
@Suite("Control socket live streams", .serialized)
struct ControlLiveTests {
    @Test func eventsAndLevelsStreamAsNewlineDelimitedJSON() async throws {
        let daemon = try APITestDaemon(speed: 8)
        try await daemon.start()
        let path = daemon.socketPath
        let events = try await Task.detached {
            try RawSocket.readLive(path: path, route: "/v1/events/live", timeout: 20) { $0.count >= 3 }
        }.value
        #expect(events.status == 200)
        #expect(events.lines.count >= 3)
        for line in events.lines {
            let event = try APIJSON.decoder.decode(EventResponse.self, from: line)
            #expect(try daemon.database.event(event.id)?.hash == event.hash)
        }

        let levels = try await Task.detached {
            try RawSocket.readLive(path: path, route: "/v1/levels/live", timeout: 10) { $0.count >= 8 }
        }.value
        #expect(levels.status == 200)
        #expect(levels.lines.count >= 8)
        for line in levels.lines {
            let reading = try APIJSON.decoder.decode(LiveLevelReading.self, from: line)
            #expect(reading.band == LevelBand(levelDB: reading.lafDB) || !reading.calibrated)
        }
        #expect(await waitUntil(3) { daemon.daemon.liveLevels.subscriberCount == 0 })
        try await daemon.stop()
    }

    @Test func subscribersBeyondTheCapGet503() async throws {
        let daemon = try APITestDaemon()
        try await daemon.start()
        let cap = daemon.daemon.liveLevels.maximumSubscribers
        var connections: [RawSocket] = []
        for _ in 0..<cap {
            let connection = try RawSocket(path: daemon.socketPath)
            connection.send("GET /v1/levels/live HTTP/1.1\r\nHost: localhost\r\n\r\n")
            connections.append(connection)
        }
        #expect(await waitUntil(5) { daemon.daemon.liveLevels.subscriberCount == cap })
        let refused = try await daemon.curl("GET", "/v1/levels/live")
        #expect(refused.status == 503)
        #expect(try refused.decode(ErrorResponse.self).error.code == "too_many_subscribers")
        connections.removeAll()
        #expect(await waitUntil(5) { daemon.daemon.liveLevels.subscriberCount == 0 })
        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        try await daemon.stop()
    }

    @Test func aSubscriberThatStopsReadingIsDroppedWithoutStallingCapture() async throws {
        let daemon = try APITestDaemon(server: { $0.liveWriteTimeout = 1 })
        try await daemon.start()
        let stalled = try RawSocket(path: daemon.socketPath, timeout: 1)
        stalled.send("GET /v1/levels/live HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(await waitUntil(5) { daemon.daemon.liveLevels.subscriberCount == 1 })
        let framesBefore = daemon.daemon.status.capturedFrames

        // Flood the daemon's own broadcaster far beyond what the socket buffers hold
        // (several MB) while the client reads nothing.
        let broadcast = daemon.daemon.liveLevels
        let flood = Task.detached {
            let reading = LiveLevelReading(time: Date(), lafDB: 42.5, laeqDB: 41.25, band: .silent, calibrated: false)
            for round in 0..<40_000 {
                broadcast.publish(reading)
                // About 10,000 readings a second: the subscription keeps up, the socket fills.
                if round % 10 == 0 { try? await Task.sleep(for: .milliseconds(1)) }
                if broadcast.subscriberCount == 0 { return round }
            }
            return 40_000
        }
        let published = await flood.value
        #expect(await waitUntil(10) { daemon.daemon.liveLevels.subscriberCount == 0 })
        // The server closes the connection (its write stayed blocked for the write
        // timeout: draining it ends in EOF) or, when the broadcast dropped the
        // subscriber before the socket filled (a busy machine serves the stream
        // slower than the flood), ends the response: the chunked body's last chunk.
        try await Task.sleep(for: .seconds(2))
        let (drained, closed, tail) = await Task.detached { stalled.drain() }.value
        #expect(drained > 0)
        #expect(closed || tail.suffix(5) == Array("0\r\n\r\n".utf8), "neither closed nor ended: \(tail)")
        let status = daemon.daemon.status
        #expect(status.droppedPeriods == 0)
        #expect(status.capturedFrames > framesBefore)
        #expect(try await daemon.curl("GET", "/v1/status").status == 200)
        print("slow subscriber dropped after \(published) published readings, \(drained) bytes were buffered")
        try await daemon.stop()
    }
}
