import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepConfiguration
import FootstepCore
import FootstepDaemon
import FootstepStore
import FootstepTesting
import FootstepWire
import Foundation
import Logging
import Testing

@Suite("Daemon evidence: classifier, bouts, clips, live feeds, status", .serialized)
struct DaemonEvidenceTests {
    @Test func classifiedEventsBoutsAndClipsLandInTheStoreAndTheLiveFeed() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let scenario = "mixed:seed=31,duration=40,snr=18"
        let truth = try SyntheticSource(spec: scenario).groundTruth
        var configuration = DaemonConfiguration()
        configuration.recording.audioFormat = .wav
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: scenario), options: DaemonOptions(stateDirectory: state),
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let live = try #require(daemon.liveEvents.subscribe())
        await DaemonTestSupport.waitClearOfMidnight()
        let collector = Task {
            var received: [EventRecord] = []
            for await event in live { received.append(event) }
            return received
        }
        try await group.run()
        let published = await collector.value

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let events = try DaemonTestSupport.events(database, session: session.id!)
        #expect(events.count >= truth.count * 8 / 10, "\(events.count) events for \(truth.count) true impacts")

        // The trained classifier named the types: footstep types agree with the ground truth
        // for most matched steps, and distractors come out as `other` more often than not.
        var agreed = 0
        var compared = 0
        var distractorsAsOther = 0
        var distractors = 0
        for event in events {
            let onset = Double(event.frameOffset) / Double(session.sampleRate)
            guard let nearest = truth.min(by: { abs($0.onset - onset) < abs($1.onset - onset) }),
                abs(nearest.onset - onset) < 0.05
            else { continue }
            if let type = nearest.footstepType, event.kind == .footstep, event.type != .unknown {
                compared += 1
                if event.type == type { agreed += 1 }
            } else if nearest.kind == .other {
                distractors += 1
                if event.kind == .other { distractorsAsOther += 1 }
            }
        }
        #expect(compared >= 10)
        #expect(Double(agreed) >= 0.6 * Double(compared), "types agree on \(agreed) of \(compared) footsteps")
        // The detector-only classifier names no type (every event `unknown`); this scenario is
        // 58 heel strikes and one stomp, so agreement above, not variety, says the types are right.
        #expect(events.contains { $0.kind == .footstep && $0.type != .unknown }, "named types, not the detector's `unknown`")
        #expect(distractors == 0 || Double(distractorsAsOther) >= 0.5 * Double(distractors), "\(distractorsAsOther)/\(distractors)")
        // Intensity from the level above the background, as the classifier rates it.
        for event in events {
            let background = try #require(event.backgroundLA)
            #expect(event.intensity == Intensity(levelAboveBackground: event.laMax - background))
        }

        // Bouts were stored, and their steps link to them.
        let bouts = try database.bouts(session: session.id!).items
        print("classifier in the daemon: types agree on \(agreed) of \(compared) footsteps, \(distractorsAsOther) of \(distractors) distractors as other, \(events.count) events, \(bouts.count) bouts")
        #expect(!bouts.isEmpty)
        for bout in bouts {
            let steps = events.filter { $0.boutId == bout.id }
            #expect(steps.count == bout.steps)
            #expect(steps.allSatisfy { $0.currentKind == .footstep }, "a bout holds settled footsteps only")
            #expect(steps.allSatisfy { $0.timestamp >= bout.startedAt && $0.timestamp <= bout.endedAt })
        }

        // Every event has its clip: 2 s before to 3 s after the onset (cut at the stream's
        // ends), a file whose SHA-256 the store recorded, in clips/YYYY-MM-DD/.
        let totalFrames = Int64(40 * session.sampleRate)
        for event in events {
            let path = database.resolve(try #require(event.clipPath, "event \(event.id!) has no clip"))
            #expect(path.hasPrefix("\(state)/clips/"))
            #expect(path.hasSuffix("-s\(session.id!)-f\(event.frameOffset).wav"))
            #expect(event.clipSha256 == (try FileChecksum.sha256(ofFileAt: path)))
            let start = max(0, event.frameOffset - 32000)
            let end = min(totalFrames, event.frameOffset + 48000)
            #expect(DaemonTestSupport.decodedFrames(path) == end - start, "clip of event \(event.id!)")
        }
        // The clip holds the very samples of the recording around the onset.
        if let event = events.first(where: { $0.frameOffset > 32000 && $0.frameOffset + 48000 < totalFrames }) {
            let file = try #require(try database.audioFiles(session: session.id!).first)
            let recording = try DaemonTestSupport.samples(file.path)
            let clip = try DaemonTestSupport.samples(database.resolve(event.clipPath!))
            let offset = Int(event.frameOffset - 32000 - file.startFrame)
            #expect(Array(recording[offset..<(offset + clip.count)]) == clip)
        }

        // Live: every event was published with its id (and its first label), in the order stored,
        // and again only when a revision changed its label.
        let firsts = LivePublications(published)
        #expect(firsts.newEvents.compactMap(\.id) == events.compactMap(\.id).sorted())
        #expect(firsts.newEvents.allSatisfy { $0.revisedKind == nil && $0.revisedType == nil })
        // Status: events today by label, the last event, counters.
        let status = daemon.status
        var expected: [String: Int] = [:]
        for event in events { expected[event.currentKind == .footstep ? event.currentType.rawValue : "other", default: 0] += 1 }
        #expect(status.eventsToday == expected)
        #expect(status.lastEvent?.id == events.last?.id)
        #expect(status.storedClips == events.count)
        #expect(status.storedBouts == bouts.count)
        #expect(status.version == FootstepVersion.current)
    }

    /// Gait context's settlements and the bout typer's revisions reach the
    /// store as hashed records on their events: the stored current labels are
    /// exactly those `analyze` gives the same audio, the stored (live) labels
    /// are untouched, and everything verifies.
    @Test func boutRevisionsAreStoredOnTheirEventsAndAgreeWithAnalyze() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        let scenario = "mixed:seed=7,duration=120,snr=15"
        let configuration = DaemonConfiguration()
        await DaemonTestSupport.waitClearOfMidnight()
        let (group, daemon) = DaemonApplication.build(
            configuration: configuration, source: .demo(scenario: scenario), options: DaemonOptions(stateDirectory: state),
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let live = try #require(daemon.liveEvents.subscribe())
        let collector = Task {
            var received: [EventRecord] = []
            for await event in live { received.append(event) }
            return received
        }
        try await group.run()
        let publications = LivePublications(await collector.value)

        let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
        let session = try #require(try database.sessions().first?.session)
        let events = try DaemonTestSupport.events(database, session: session.id!)
        let revisions = try database.revisions(ofEvents: events.map { $0.id! })
        let revised = events.filter { $0.revisedType != nil }
        let kinds = revisions.filter(\.changesKind)
        print("revisions in the daemon: \(revisions.count) of \(revised.count) of \(events.count) events, \(kinds.count) of a kind")
        #expect(revisions.contains { $0.reason.hasPrefix("bout typer") }, "the bout typer revised no step in \(scenario)")
        #expect(!kinds.isEmpty, "gait context settled no provisional event as the other kind in \(scenario)")
        for event in revised {
            let own = revisions.filter { $0.eventId == event.id }
            #expect(own.first?.previousHash == event.hash)
            #expect(own.first?.previousKind == event.kind)
            #expect(own.first?.previousType == event.type)
            #expect(own.last?.kind == event.currentKind)
            #expect(own.last?.type == event.currentType)
        }
        let report = try database.verifyEvidence()
        #expect(report.isIntact, "\(report)")
        #expect(report.revisions?.checkedRevisions == revisions.count)

        let analysed = try FileAnalysis.analyse(
            source: try SyntheticSource(spec: scenario), configuration: configuration.analysisConfiguration,
            classifier: FootstepModelClassifier()).events
        let byFrame = Dictionary(analysed.map { ($0.onsetFrame, $0) }) { first, _ in first }
        var compared = 0
        for event in events {
            guard let twin = byFrame[event.frameOffset] else { continue }
            compared += 1
            #expect(event.currentKind == twin.kind, "event at frame \(event.frameOffset)")
            #expect(event.currentType == twin.type, "event at frame \(event.frameOffset)")
            #expect(event.currentConfidence == twin.confidence, "event at frame \(event.frameOffset)")
        }
        #expect(compared == events.count, "\(compared) of \(events.count) stored events found by analyze")
        // The live feed sent each event once with its first label, and again after each batch of
        // revisions that changed its label: its last publication has the label the store has now.
        #expect(publications.newEvents.compactMap(\.id) == events.compactMap(\.id).sorted())
        let relabelled = events.filter { $0.currentKind.label($0.currentType) != $0.kind.label($0.type) }
        #expect(!relabelled.isEmpty)
        for event in events {
            let sent = publications.all.filter { $0.id == event.id }
            #expect(sent.last?.currentKind == event.currentKind, "event \(event.id!)")
            #expect(sent.last?.currentType == event.currentType, "event \(event.id!)")
            for (before, after) in zip(sent, sent.dropFirst()) {
                #expect(
                    before.currentKind.label(before.currentType) != after.currentKind.label(after.currentType),
                    "event \(event.id!) sent again without a new label")
            }
        }
        #expect(publications.revisions.count >= relabelled.count)
        // Today's counts follow the revisions.
        var expected: [String: Int] = [:]
        for event in events { expected[event.currentKind == .footstep ? event.currentType.rawValue : "other", default: 0] += 1 }
        #expect(daemon.status.eventsToday == expected)
    }

    @Test func eventsTodayStartFromTheStoreAndTheStatusLineSaysSo() async throws {
        let directory = try TemporaryDirectory()
        let state = directory.appending("state")
        await DaemonTestSupport.waitClearOfMidnight()
        for seed in [1, 2] {
            let (group, daemon) = DaemonApplication.build(
                configuration: DaemonConfiguration(), source: .demo(scenario: "stomping:seed=\(seed),duration=8"),
                options: DaemonOptions(stateDirectory: state), logger: DaemonTestSupport.quietLogger,
                handleSignals: false, controlSocket: false)
            try await group.run()
            let database = try FootstepDatabase.open(path: "\(state)/footstepd.db")
            let all = try database.events(EventFilter(limit: EventFilter.maximumLimit)).items
            // The second run counts the first run's events too (read from the store at start).
            #expect(daemon.status.eventsTodayTotal == all.count)
            #expect(daemon.status.line.contains("\(all.count) events today"))
            let top = try #require(daemon.status.eventsToday.max { $0.value < $1.value })
            #expect(daemon.status.line.contains("\(top.value) \(top.key)"))
        }
    }

    @Test func liveLevelReadingsArriveAboutEightTimesASecond() async throws {
        let directory = try TemporaryDirectory()
        let (group, daemon) = DaemonApplication.build(
            configuration: DaemonConfiguration(), source: .demo(scenario: "walking:seed=4,duration=3"),
            options: DaemonOptions(stateDirectory: directory.appending("state"), speed: 1),
            logger: DaemonTestSupport.quietLogger, handleSignals: false, controlSocket: false)
        let stream = try #require(daemon.liveLevels.subscribe())
        let collector = Task {
            var readings: [(LiveLevelReading, ContinuousClock.Instant)] = []
            for await reading in stream { readings.append((reading, .now)) }
            return readings
        }
        let running = Task { try await group.run() }
        var sawLevelInStatus = false
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(100))
            if daemon.status.level != nil { sawLevelInStatus = true }
        }
        try await running.value
        let readings = await collector.value
        #expect(sawLevelInStatus)
        // 3 s of audio at real time: 24 readings, 125 ms apart in stream time.
        #expect(readings.count >= 23 && readings.count <= 24, "\(readings.count) readings")
        for (previous, next) in zip(readings, readings.dropFirst()) {
            #expect(abs(next.0.time.timeIntervalSince(previous.0.time) - 0.125) < 0.001)
        }
        // Delivered in real time, not in one burst at the end.
        if let first = readings.first?.1, let last = readings.last?.1 {
            #expect(last - first > .seconds(2.5))
        }
        for (reading, _) in readings {
            #expect(reading.lafDB.isFinite && reading.laeqDB.isFinite)
            #expect(reading.lafDB > -100 && reading.laeqDB > -100)
            #expect(reading.band == LevelBand(levelDB: reading.lafDB))
            #expect(!reading.calibrated)
        }
    }
}

/// What a live-feed subscriber received: each event first as stored, then
/// again (the same id) when a revision changed its label.
struct LivePublications {
    let all: [EventRecord]

    init(_ all: [EventRecord]) {
        self.all = all
    }

    /// The first publication of each event, in the order received.
    var newEvents: [EventRecord] {
        var seen = Set<Int64>()
        return all.filter { seen.insert($0.id!).inserted }
    }

    /// The publications after an event's first.
    var revisions: [EventRecord] {
        var seen = Set<Int64>()
        return all.filter { !seen.insert($0.id!).inserted }
    }
}
