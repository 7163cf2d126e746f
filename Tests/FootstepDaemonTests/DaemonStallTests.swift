import FootstepAudio
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

/// A microphone whose audio stops and comes back, on a real-time ALSA PCM
/// (the `file` plugin blocked reading a FIFO fed at the wall clock's pace).
@Suite("Daemon capture stalls")
struct DaemonStallTests {
    /// footstepd on `fifo`'s device, once it records (at least a second captured), and what stops it.
    static func recording(
        from fifo: PacedFIFO, state: String
    ) async throws -> (daemon: FootstepDaemonService, stop: () async throws -> Void) {
        let tree = try ALSAConfigurationTree(text: fifo.configurationText)
        let (group, daemon) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .alsa(device: fifo.name, tree: tree),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }
        #expect(await waitUntil(10) { daemon.status.state == .recording && daemon.status.capturedFrames > 16000 })
        return (daemon, {
            await group.triggerGracefulShutdown()
            try await running.value
        })
    }

    @Test func survivesLongStallsAndRecordsEachOutageAsAGap() async throws {
        let directory = try TemporaryDirectory()
        let fifo = try PacedFIFO(in: directory.path)
        defer { fifo.stop() }
        let state = directory.appending("state")
        let (daemon, stop) = try await Self.recording(from: fifo, state: state)

        var outages: [(from: Date, to: Date)] = []
        for _ in 0..<2 {
            let from = Date()
            fifo.stall(for: 21)
            #expect(await waitUntil(8) { daemon.status.state == .deviceLost })
            // Still in the outage 15 s later: no frames, and the state says so.
            let stalledFrames = daemon.status.capturedFrames
            try await Task.sleep(for: .seconds(15))
            #expect(daemon.status.state == .deviceLost)
            #expect(daemon.status.capturedFrames - stalledFrames < 4096)
            #expect(await waitUntil(10) { Date().timeIntervalSince(from) >= 21 })
            let to = from.addingTimeInterval(21)
            outages.append((from, to))
            // Capture is back within 5 s of the audio.
            #expect(await waitUntil(5) { daemon.status.state == .recording })
            let back = daemon.status.capturedFrames
            #expect(await waitUntil(5) { daemon.status.capturedFrames > back + 16000 })
        }
        try await stop()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        #expect(try DaemonTestSupport.integrityCheck(database) == "ok")
        let session = try #require(try database.sessions().first?.session)
        #expect(session.status == .completed)
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.count == 2)
        for (gap, outage) in zip(gaps, outages) {
            #expect(abs(gap.startedAt.timeIntervalSince(outage.from)) < 1, "gap \(gap.startedAt) … \(gap.endedAt), outage \(outage.from) … \(outage.to)")
            #expect(abs(gap.endedAt.timeIntervalSince(outage.to)) < 1, "gap \(gap.startedAt) … \(gap.endedAt), outage \(outage.from) … \(outage.to)")
        }
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count == 3)
        #expect(files.allSatisfy { $0.closedAt != nil && DaemonTestSupport.decodedFrames($0.path) == $0.frames })
    }

    /// Stopped while the device is stalled: the outage is a gap up to the stop, and the session ends at the stop (not
    /// at its last audio, which would leave the stretch unexplained between sessions).
    @Test func anOutageStillOpenAtTheStopIsAGapToTheStop() async throws {
        let directory = try TemporaryDirectory()
        let fifo = try PacedFIFO(in: directory.path)
        defer { fifo.stop() }
        let state = directory.appending("state")
        let (daemon, stop) = try await Self.recording(from: fifo, state: state)
        let from = Date()
        fifo.stall(for: 120)
        #expect(await waitUntil(8) { daemon.status.state == .deviceLost })
        try await Task.sleep(for: .seconds(2))
        let stoppedAt = Date()
        try await stop()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.count == 1)
        let gap = try #require(gaps.first)
        #expect(gap.reason == "capture device lost, still when the session ended")
        #expect(abs(gap.startedAt.timeIntervalSince(from)) < 1, "gap from \(gap.startedAt), stall from \(from)")
        // The stop reaches the capture thread at its next read (a stall times out in a few seconds).
        #expect(gap.endedAt >= stoppedAt && gap.endedAt.timeIntervalSince(stoppedAt) < 6, "gap to \(gap.endedAt), stop \(stoppedAt)")
        #expect(session.endedAt == gap.endedAt)
        #expect(session.endReason == "footstepd stopped (systemctl stop or a signal)")
    }
}
