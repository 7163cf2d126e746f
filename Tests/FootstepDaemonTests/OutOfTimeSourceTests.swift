import FootstepAudio
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

@Suite("A source that runs ahead of the clock")
struct OutOfTimeSourceTests {
    /// A real-time device (the `file` plugin on a FIFO fed at the wall clock's pace)
    /// sends 30 s of audio at once: its audio runs ahead of the wall clock by more than
    /// its buffers explain. That stretch is a gap ("capture out of time"), what comes
    /// is discarded until the device has kept time for 10 s and the clock has caught
    /// up, and then the session clock is the wall clock again: no audio time is
    /// invented and no two files overlap.
    @Test func audioAheadOfTheClockIsAGapAndTheClockComesBack() async throws {
        let directory = try TemporaryDirectory()
        let fifo = try PacedFIFO(in: directory.path)
        defer { fifo.stop() }
        let state = directory.appending("state")
        let (group, daemon) = DaemonApplication.build(
            configuration: DaemonConfiguration(),
            source: .alsa(device: fifo.name, tree: try ALSAConfigurationTree(text: fifo.configurationText)),
            options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger,
            handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }
        #expect(await waitUntil(10) { daemon.status.state == .recording && daemon.status.capturedFrames > 32000 })
        let burstAt = Date()
        fifo.burst(seconds: 30)
        #expect(await waitUntil(10) { daemon.status.state == .deviceLost })
        #expect(daemon.status.lastError?.contains("capture out of time") == true, "\(daemon.status.lastError ?? "")")
        // Back once it has kept time for 10 s and the clock has passed what was recorded.
        #expect(await waitUntil(30) { daemon.status.state == .recording })
        try await Task.sleep(for: .seconds(3))
        await group.triggerGracefulShutdown()
        try await running.value
        let stoppedAt = Date()

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let gaps = try database.gaps(session: session.id!)
        #expect(gaps.count == 1)
        let gap = try #require(gaps.first)
        #expect(gap.reason.contains("out of time"), "\(gap.reason)")
        #expect(abs(gap.startedAt.timeIntervalSince(burstAt)) < 2, "the gap starts \(gap.startedAt.timeIntervalSince(burstAt)) s after the burst")
        #expect(gap.endedAt > gap.startedAt && gap.endedAt < stoppedAt)
        // The files follow one another; none claims audio much beyond the wall clock when it
        // was closed (its buffers' worth at most), and the session ends with the wall clock.
        let files = try database.audioFiles(session: session.id!)
        #expect(files.count == 2)
        for (previous, next) in zip(files, files.dropFirst()) {
            let previousEnd = previous.startedAt.addingTimeInterval(Double(previous.frames) / 16000)
            #expect(next.startedAt >= previousEnd.addingTimeInterval(-0.001))
        }
        for file in files {
            let end = file.startedAt.addingTimeInterval(Double(file.frames) / 16000)
            let closed = try #require(file.closedAt)
            #expect(end.timeIntervalSince(closed) < 10.5, "a file ends \(end.timeIntervalSince(closed)) s after it was closed")
        }
        let last = try #require(files.last)
        let lastEnd = last.startedAt.addingTimeInterval(Double(last.frames) / 16000)
        #expect(abs(lastEnd.timeIntervalSince(stoppedAt)) < 1.5, "the session's audio ends \(lastEnd.timeIntervalSince(stoppedAt)) s from the stop")
        // No event claims a time the wall clock had not reached.
        for event in try DaemonTestSupport.events(database, session: session.id!) {
            #expect(event.timestamp < stoppedAt)
        }
    }
}
