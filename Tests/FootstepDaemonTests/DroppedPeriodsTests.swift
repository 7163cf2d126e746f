import FootstepAudio
import FootstepConfiguration
import FootstepDaemon
import FootstepStore
import FootstepTesting
import Foundation
import Testing

@Suite("Capture that falls behind the device")
struct DroppedPeriodsTests {
    /// A real-time device (the `file` plugin on a FIFO fed at the wall clock's
    /// pace, a burst at the start of every second) read at half its pace
    /// through a ring of 0.64 s (20 periods of 32 ms): the periods that do not fit are
    /// dropped. Each hole is a gap of its length, the session clock skips it,
    /// and every stored burst and event sits at its true place in the stream. At 48 kHz too, where the
    /// session's clock and files are at the device's rate and the analysis at 16 kHz.
    @Test(arguments: [16_000, 48_000])
    func droppedPeriodsAreGapsOfTheirLengthAndTheClockSkipsThem(rate: Int) async throws {
        let directory = try TemporaryDirectory()
        let fifo = try PacedFIFO(sampleRate: rate, in: directory.path)
        defer { fifo.stop() }
        let state = directory.appending("state")
        var configuration = DaemonConfiguration()
        // Periods of 512 frames: the FIFO gets 1,024 at a time, so every read of the
        // plugin is whole (a short read would be padded, and the stream not the FIFO's).
        configuration.capture.periodFrames = 512
        configuration.capture.sampleRate = rate
        var options = DaemonOptions(stateDirectory: state, speed: 0.5)
        options.captureRingPeriods = 20
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .alsa(device: fifo.name, tree: try ALSAConfigurationTree(text: fifo.configurationText)),
            options: options, logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let running = Task { try await group.run() }
        #expect(await waitUntil(10) { daemon.status.state == .recording })
        try await Task.sleep(for: .seconds(8))
        await group.triggerGracefulShutdown()
        try await running.value

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let gaps = try database.gaps(session: session.id!)
        #expect(!gaps.isEmpty && gaps.allSatisfy { $0.reason.contains("dropped, analysis fell behind") }, "\(gaps.map(\.reason))")
        let files = try database.audioFiles(session: session.id!)
        #expect(session.sampleRate == rate && files.allSatisfy { $0.sampleRate == rate })
        let first = try #require(files.first)
        // The session time of the stream's first frame (the clock is anchored there).
        let origin = first.startedAt.addingTimeInterval(-Double(first.startFrame) / Double(rate))
        // Files and gaps tile the stream end to end, each file where its frames are.
        var pieces: [(start: Date, end: Date, file: Bool)] = gaps.map { ($0.startedAt, $0.endedAt, false) }
        for file in files {
            #expect(abs(file.startedAt.timeIntervalSince(origin) - Double(file.startFrame) / Double(rate)) < 0.001)
            pieces.append((file.startedAt, file.startedAt.addingTimeInterval(Double(file.frames) / Double(rate)), true))
        }
        pieces.sort { $0.start < $1.start }
        for (previous, next) in zip(pieces, pieces.dropFirst()) {
            #expect(abs(next.start.timeIntervalSince(previous.end)) < 0.001, "\(previous) then \(next)")
        }
        let heard = Double(files.map(\.frames).reduce(0, +)) / Double(rate)
        let missing = gaps.map { $0.endedAt.timeIntervalSince($0.startedAt) }.reduce(0, +)
        // Read at half the pace: about half of the stream is heard, the rest is in the gaps.
        #expect(heard > 2 && missing > 2, "\(heard) s heard, \(missing) s in gaps")
        // Each gap is whole periods of 512 frames, to the store's millisecond (512 frames are 32 ms at 16 kHz,
        // 10.67 ms at 48 kHz).
        let tolerance = rate == 16_000 ? 1 : Double(rate) / 1000
        for gap in gaps {
            let frames = gap.endedAt.timeIntervalSince(gap.startedAt) * Double(rate)
            #expect(abs(frames - 512 * (frames / 512).rounded()) <= tolerance, "a gap of \(frames) frames is not whole periods")
        }
        // The bursts in the files lie where the device sent them: the first 20 ms of each second.
        var bursts = 0
        for file in files {
            let decoded = try readToEnd(try AudioFileSource(path: file.path))
            for (index, sample) in decoded.enumerated() where abs(sample) > 0.05 {
                let position = (Int(file.startFrame) + index) % rate
                #expect(position < rate / 50, "a burst at stream frame \(Int(file.startFrame) + index)")
                bursts += 1
                if position >= rate / 50 { break }
            }
        }
        #expect(bursts > 0)
        // So do the events. The detector may place an onset a few milliseconds before its burst; when a
        // dropped period lies between the two, the event stays before the gap, a period earlier.
        let events = try DaemonTestSupport.events(database, session: session.id!)
        #expect(events.count >= 2)
        for event in events {
            let phase = event.timestamp.timeIntervalSince(origin).truncatingRemainder(dividingBy: 1)
            let beforeAGap = gaps.contains {
                let lead = $0.startedAt.timeIntervalSince(event.timestamp)
                return lead >= -0.002 && lead < 0.01
            }
            #expect(phase < 0.05 || phase > 0.97 || beforeAGap, "an event \(phase) s after a whole second of the stream")
        }
    }
}
