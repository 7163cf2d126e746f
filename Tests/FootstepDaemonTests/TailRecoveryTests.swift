import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepDSP
import FootstepTesting
import FootstepStore
import Foundation
import Testing

@testable import FootstepDaemon

/// The events a kill caught in memory: their audio is on disk, their rows are
/// not. Start-up recovery analyses the file's tail and appends them.
@Suite struct TailRecoveryTests {
    /// At 16 kHz, and at 48 kHz, where the session's frames are the capture's and the analysis runs at 16 kHz.
    @Test(arguments: [16_000, 48_000])
    func theEventsTheKillCaughtAreAppendedWithANote(rate: Int) throws {
        let directory = try TemporaryDirectory()
        // 2 minutes of a walk, written as the daemon writes its rolling file.
        let path = directory.appending("session-1.wav")
        var frames = try RenderedScenario("walking:seed=4,duration=120").writeWAV(to: path)
        if rate != 16_000 {
            let samples = try readToEnd(try ResamplingSource(try AudioFileSource(path: path), sampleRate: rate))
            let writer = try AudioFileWriter(path: path, format: AudioFormat(sampleRate: rate, channels: 1), container: .wav)
            try samples.withUnsafeBufferPointer { try writer.write($0) }
            try writer.close()
            frames = Int64(samples.count)
        }
        // The analysis's frames (16 kHz) on the session's clock.
        let scale = Int64(rate / 16_000)

        let analysis = AnalysisConfiguration()
        let clean = try FileAnalysis.analyse(path: path, configuration: analysis).events
        try #require(clean.count > 20)
        // The kill came after seven eighths of the events were stored, all but one: the
        // recovery does not count on the store missing only a tail (an event is reported up
        // to `maximumEventDelay` after its onset).
        let keep = clean.count * 7 / 8
        let held = keep - 2
        let lead = Double(clean[keep - 1].onsetFrame - clean[held].onsetFrame) / 16000
        try #require(lead > 0.2 && lead < analysis.maximumEventDelay)
        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let startedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let session = try database.createSession(startedAt: startedAt, device: "demo", sampleRate: rate)
        let file = try database.addAudioFile(
            sessionId: session.id!, path: path, startedAt: startedAt, startFrame: 0, sampleRate: rate, format: .wav)
        try database.updateAudioFileFrames(file.id!, frames: frames, bytes: 0)
        func row(_ event: AnalyzedEvent, notes: String = "") -> NewEvent {
            NewEvent(
                event, sessionId: session.id!, audioFileId: file.id, frameOffset: event.onsetFrame * scale,
                timestamp: NewEvent.timestamp(anchor: startedAt, frameOffset: event.onsetFrame * scale, sampleRate: rate),
                notes: notes)
        }
        _ = try database.appendEvents(clean.prefix(keep).indices.filter { $0 != held }.map { row(clean[$0]) })

        let recovery = TailRecovery(
            database: database, analysis: analysis, model: { try FootstepModel.bundled() },
            logger: DaemonTestSupport.quietLogger)
        let recovered = try recovery.recover(session: session.id!)

        let stored = try database.events(EventFilter(sessionId: session.id!, limit: EventFilter.maximumLimit)).items
        let appended = stored.filter { $0.notes == TailRecovery.note }
        #expect(recovered.events == appended.count)
        #expect(recovered.labels == 0, "the stored labels were the clean analysis's")
        // The tail is analysed from `lead` before the last stored event: the same events come out,
        // at the same frames (within a detector frame), with the same labels; the held one too.
        let missing = [clean[held]] + clean.suffix(from: keep)
        #expect(abs(appended.count - missing.count) <= 1, "recovered \(appended.count) of \(missing.count)")
        var matched = 0
        for event in missing {
            if let twin = appended.first(where: { abs($0.frameOffset - event.onsetFrame * scale) <= 160 * scale }) {
                matched += 1
                #expect(twin.kind == event.kind)
            }
        }
        #expect(matched >= missing.count - 1)
        #expect(appended.contains { abs($0.frameOffset - clean[held].onsetFrame * scale) <= 160 * scale })
        #expect(
            appended.allSatisfy { $0.frameOffset > clean[held - 1].onsetFrame * scale }, "nothing stored is appended again")
        #expect(try database.verifyChain().isIntact)
        // A second start-up finds nothing more to recover.
        #expect(try recovery.recover(session: session.id!) == TailRecovery.Recovered())
    }

    /// A kill in the middle of a walk: the events were stored with their live labels and
    /// the revisions made so far, but the settlements still held and the bout revision of
    /// the walk in progress were lost. Start-up settles them as a clean stop would have.
    @Test func theLabelsTheKillLeftPendingAreSettledAsACleanStopWould() throws {
        let directory = try TemporaryDirectory()
        let scenario = try RenderedScenario("mixed:seed=7,duration=70,snr=15")
        let (samples, format) = (scenario.samples, scenario.format)
        let analysis = AnalysisConfiguration()
        let classifier = { try FootstepModelClassifier(model: FootstepModel.bundled()) }

        /// What the daemon had stored when killed after `frames`: every event with its first
        /// label, every revision reported by then, and so each event's label at the kill;
        /// and the labels a clean stop there ends with.
        struct Kill {
            var frames = 0
            var first: [AnalyzedEvent] = []
            var revisions: [TypeRevision] = []
            var atKill: [AnalyzedEvent] = []
            var stopped: [AnalyzedEvent] = []
            var levels: [IntervalLevels] = []
            var levelsAtKill = 0
            var pending: Int { zip(atKill, stopped).filter { $0.label != $1.label }.count }
        }
        func kill(after frames: Int) throws -> Kill {
            var pipeline = try AnalysisPipeline(format: format, configuration: analysis, classifier: classifier())
            var result = Kill(frames: frames)
            func collect(_ output: AnalysisOutput) {
                switch output {
                case let .event(event), let .provisional(event):
                    result.first.append(event)
                    result.stopped.append(event)
                case let .revision(revision):
                    result.revisions.append(revision)
                    if let index = result.stopped.firstIndex(where: { $0.onsetFrame == revision.onsetFrame }) {
                        result.stopped[index].apply(revision)
                    }
                case let .levels(levels): result.levels.append(levels)
                }
            }
            samples.withUnsafeBufferPointer { all in
                var frame = 0
                while frame < frames {
                    let count = min(4096, frames - frame)
                    let block = UnsafeBufferPointer(rebasing: all[(frame * format.channels)..<((frame + count) * format.channels)])
                    pipeline.process(block, frames: count) { collect($0) }
                    frame += count
                }
            }
            let (first, revisions, atKill) = (result.first, result.revisions, result.stopped)
            result.levelsAtKill = result.levels.count
            pipeline.finish { collect($0) }
            (result.first, result.revisions, result.atKill) = (first, revisions, atKill)
            return result
        }

        // The kill: the moment in the second half with the most labels still to change.
        var best: Kill?
        for seconds in stride(from: 44, through: 60, by: 4) {
            let candidate = try kill(after: seconds * format.sampleRate)
            if candidate.pending > (best?.pending ?? 0) { best = candidate }
        }
        let kill = try #require(best, "no moment of the walk with a label pending")
        try #require(kill.pending >= 2)
        let path = directory.appending("killed.wav")
        try scenario.writeWAV(to: path, frames: kill.frames)

        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let startedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let session = try database.createSession(startedAt: startedAt, device: "demo", sampleRate: format.sampleRate)
        let file = try database.addAudioFile(
            sessionId: session.id!, path: path, startedAt: startedAt, startFrame: 0, sampleRate: format.sampleRate, format: .wav)
        try database.updateAudioFileFrames(file.id!, frames: Int64(kill.frames), bytes: 0)
        _ = try database.appendEvents(
            kill.first.map {
                NewEvent(
                    $0, sessionId: session.id!, audioFileId: file.id, frameOffset: $0.onsetFrame,
                    timestamp: NewEvent.timestamp(anchor: startedAt, frameOffset: $0.onsetFrame, sampleRate: format.sampleRate))
            })
        _ = try database.reviseTypes(
            kill.revisions.map {
                NewTypeRevision(
                    frameOffset: $0.onsetFrame, kind: $0.kind, type: $0.type, confidence: $0.confidence,
                    reason: $0.settles ? RevisionQueue.settlingReason : RevisionQueue.reason)
            }, sessionId: session.id!, reason: RevisionQueue.reason)
        try database.appendLevels(
            kill.levels.prefix(kill.levelsAtKill).compactMap {
                LevelMinuteRecord(
                    $0, sessionId: session.id!,
                    startedAt: startedAt.addingTimeInterval(Double($0.startFrame) / Double(format.sampleRate)),
                    sampleRate: format.sampleRate)
            })
        func storedLabels() throws -> [String] {
            try database.events(session: session.id!, fromFrame: 0).map { $0.currentKind.label($0.currentType) }
        }
        let before = try storedLabels()
        #expect(zip(before, kill.stopped).filter { $0 != $1.label }.count == kill.pending)
        let unreported = kill.stopped.count - kill.first.count

        let recovery = TailRecovery(
            database: database, analysis: analysis, model: { try FootstepModel.bundled() },
            logger: DaemonTestSupport.quietLogger)
        let recovered = try recovery.recover(session: session.id!)
        // The tail's analysis (from the file's start, as the live one) ends with the clean
        // stop's events and labels.
        #expect(
            recovered
                == TailRecovery.Recovered(
                    events: unreported, labels: kill.pending, levels: kill.levels.count - kill.levelsAtKill))
        #expect(try storedLabels() == kill.stopped.map(\.label))
        let revisions = try database.revisions(ofEvents: database.events(session: session.id!, fromFrame: 0).map { $0.id! })
        #expect(revisions.filter { $0.reason == TailRecovery.labelReason }.count == kill.pending)
        #expect(try database.verifyChain().isIntact)
        #expect(try database.verifyRevisions().isIntact)
        // A second start-up finds nothing more to do.
        #expect(try recovery.recover(session: session.id!) == TailRecovery.Recovered())
    }

    /// The tail starts early enough for a pending label to be judged as the live analysis
    /// judged it: its bout and the 5 minutes of footsteps before it (a stomp is heavier than
    /// the walker's ordinary steps), and the detector's warm-up; never before the file.
    @Test func theTailCoversWhatAPendingTypeIsJudgedAgainst() {
        let rate = 16000.0
        func frame(_ seconds: Double) -> Int64 { Int64(seconds * rate) }
        #expect(TailRecovery.lead >= AnalysisConfiguration.typingContextSeconds + TailRecovery.warmUp)
        #expect(AnalysisConfiguration.typingContextSeconds >= 300 + 64 * AnalysisConfiguration.boutGap)
        // An hour's file, the last event stored 2 s before its end.
        let hour = frame(3600)
        #expect(
            TailRecovery.tailStart(fileStart: 0, fileEnd: hour, lastStored: hour - frame(2), rate: rate)
                == hour - frame(2) - frame(TailRecovery.lead))
        // Nothing stored for the last half hour, or ever: the last `longestTail` only.
        for lastStored in [hour / 2, nil] {
            #expect(
                TailRecovery.tailStart(fileStart: 0, fileEnd: hour, lastStored: lastStored, rate: rate)
                    == hour - frame(TailRecovery.longestTail))
        }
        // A file that began 3 minutes before the kill (a new file of the session): all of it.
        #expect(
            TailRecovery.tailStart(fileStart: hour - frame(180), fileEnd: hour, lastStored: hour - frame(2), rate: rate)
                == hour - frame(180))
    }

    /// The level minute in progress at a kill: the minutes before it were stored, its own
    /// only in memory. Start-up measures it from the file, on the stored minutes' grid.
    @Test func theLevelMinuteInProgressIsMeasuredOnTheStoredMinutesGrid() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("session-1.wav")
        let scenario = try RenderedScenario("mixed:seed=3,duration=130")
        let frames = try scenario.writeWAV(to: path)
        let rate = scenario.sampleRate
        let analysis = AnalysisConfiguration()
        // A clean stop's intervals: two full minutes and the 10 s in progress at the kill.
        let clean = try FileAnalysis.levels(source: AudioFileSource(path: path), configuration: analysis)
        try #require(clean.map(\.frames) == [60 * rate, 60 * rate, 10 * rate])

        let database = try FootstepDatabase.open(path: directory.appending("footstepd.db"))
        let startedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let session = try database.createSession(startedAt: startedAt, device: "demo", sampleRate: rate)
        let file = try database.addAudioFile(
            sessionId: session.id!, path: path, startedAt: startedAt, startFrame: 0, sampleRate: rate, format: .wav)
        try database.updateAudioFileFrames(file.id!, frames: frames, bytes: 0)
        func minute(_ levels: IntervalLevels) -> LevelMinuteRecord? {
            LevelMinuteRecord(
                levels, sessionId: session.id!,
                startedAt: startedAt.addingTimeInterval(Double(levels.startFrame) / Double(rate)), sampleRate: rate)
        }
        try database.appendLevels(clean.prefix(2).compactMap(minute))

        let recovery = TailRecovery(
            database: database, analysis: analysis, model: { try FootstepModel.bundled() },
            logger: DaemonTestSupport.quietLogger)
        #expect(try recovery.recover(session: session.id!).levels == 1)
        let stored = try database.levels(session: session.id!).items
        try #require(stored.count == 3)
        let expected = try #require(minute(clean[2]))
        let recovered = stored[2]
        #expect(abs(recovered.startedAt.timeIntervalSince(expected.startedAt)) < 0.001)
        #expect(recovered.seconds == expected.seconds)
        // Measured after a minute of the same audio: the filters have settled as the live meter's had.
        for (name, got, want) in [
            ("LAeq", recovered.laeq, expected.laeq), ("LCeq", recovered.lceq, expected.lceq),
            ("LAFmax", recovered.lafMax, expected.lafMax), ("LAFmin", recovered.lafMin, expected.lafMin),
            ("LA10", recovered.la10, expected.la10), ("LA90", recovered.la90, expected.la90),
        ] {
            #expect(abs(got - want) < 0.05, "\(name): \(got) recovered, \(want) measured without the kill")
        }
        #expect(try recovery.recover(session: session.id!).levels == 0, "a second start-up measures nothing again")
    }
}
