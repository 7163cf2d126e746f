import FootstepAPI
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepDSP
import FootstepStore
import FootstepWire
import Foundation
import Logging

/// Turns the capture thread's reports into store rows, journal entries and
/// live feeds for one session: audio files as they open and close (with their
/// SHA-256), events (stored within one service tick, then published with
/// their id), level intervals in batches, gait bouts, event clips with their
/// SHA-256, live meter readings, gaps after a device loss. Audio files are
/// kept by ``SessionAudioFiles``, label revisions by ``RevisionQueue``. An
/// event the analysis reported provisionally is stored and published at once
/// with the classifier's label; it joins a bout only when the revision that
/// settles it says it is a footstep.
///
/// - Note: Used by the service's task only.
struct SessionSink {
    /// The reason of a gap that is a pause.
    static let pausedReason = "recording paused"
    /// The reasons of the gaps of a lost device and of a source out of time.
    static let deviceLostReason = "capture device lost"
    static let outOfTimeReason = "capture out of time: the source delivered audio ahead of the clock"

    /// Where live values go.
    struct Feeds {
        var levels: LiveBroadcast<LiveLevelReading>
        var events: LiveBroadcast<EventRecord>
        /// True when a calibration offset is applied (levels are dB SPL).
        var calibrated: Bool
    }

    typealias StatusUpdate = ((inout DaemonStatus) -> Void) -> Void

    let database: FootstepDatabase
    let sessionId: Int64
    let sampleRate: Int
    let channels: Int
    let logger: Logger
    let feeds: Feeds

    /// The session's audio files in the store.
    private var audioFiles: SessionAudioFiles
    private var pendingEvents: [NewEvent] = []
    private var pendingLevels: [LevelMinuteRecord] = []
    /// Label revisions of stored (or pending) events, stored after their events.
    private var revisions: RevisionQueue
    /// Onset frames of provisional events not stored yet.
    private var provisionalFrames: Set<Int64> = []
    /// Stored provisional events by onset frame, until their settlement arrives.
    private var unsettled: [Int64: EventRecord] = [:]
    /// Settlements of provisional events, applied to bouts once their events are stored.
    private var settlements: [TypeRevision] = []
    private var failedFlushes = 0
    /// The stretch without audio in progress (disk full, below the reserve): since when, and why.
    private var audioGap: (start: Date, reason: String)?
    private var bouts = BoutRecorder()
    /// Stored events by onset frame, until their clip arrives (clips come seconds later).
    private var eventIdsByOnset: [Int64: Int64] = [:]
    /// Clips whose event is not stored yet.
    private var unmatchedClips: [Int64: EventClipRecorder.Clip] = [:]
    private(set) var storedEvents = 0
    var storedRevisions: Int { revisions.stored }
    /// The latest wall-clock instant of written data (end of a file, level interval or event).
    private(set) var lastDataTime: Date?
    /// A fatal capture error, if the capture thread stopped on one.
    private(set) var failure: String?

    /// Where what the store refused goes at a stop (nil: nowhere, it is lost and said so).
    private let journal: PendingJournal?
    /// Records the store refused that the stop put in the journal.
    private(set) var journaled = 0

    init(
        database: FootstepDatabase, sessionId: Int64, sampleRate: Int, channels: Int, logger: Logger, feeds: Feeds,
        journal: PendingJournal? = nil
    ) {
        self.journal = journal
        self.database = database
        self.sessionId = sessionId
        self.sampleRate = sampleRate
        self.channels = channels
        self.logger = logger
        self.feeds = feeds
        self.audioFiles = SessionAudioFiles(
            database: database, sessionId: sessionId, sampleRate: sampleRate, channels: channels, logger: logger)
        self.revisions = RevisionQueue(database: database, sessionId: sessionId, logger: logger)
    }

    private var sessionMetadata: Logger.Metadata { ["footstep.session": "\(sessionId)"] }

    private mutating func noteData(_ time: Date) {
        if lastDataTime.map({ time > $0 }) ?? true { lastDataTime = time }
    }

    mutating func handle(_ reports: [CaptureReport], status: StatusUpdate) {
        var lastReading: LiveLevelReading?
        for report in reports {
            switch report {
            case let .fileOpened(file):
                audioFiles.open(file)
            case let .fileClosed(file):
                noteData(audioFiles.close(file))
                status { $0.closedFiles += 1 }
            case let .event(event, timestamp, provisional):
                pendingEvents.append(newEvent(event, timestamp: timestamp))
                if provisional { provisionalFrames.insert(event.onsetFrame) }
                noteData(timestamp.addingTimeInterval(event.duration))
            case let .revision(revision):
                revisions.append(revision)
                if revision.settles { settlements.append(revision) }
            case let .levels(levels, startedAt):
                guard let minute = LevelMinuteRecord(levels, sessionId: sessionId, startedAt: startedAt, sampleRate: sampleRate)
                else { continue }
                pendingLevels.append(minute)
                noteData(minute.endsAt)
            case let .level(laf, laeq, time):
                let reading = LiveLevelReading(
                    time: time, lafDB: laf.storableLevel, laeqDB: laeq.storableLevel, band: LevelBand(levelDB: laf),
                    calibrated: feeds.calibrated)
                feeds.levels.publish(reading)
                lastReading = reading
            case let .clip(clip):
                if let id = eventIdsByOnset.removeValue(forKey: clip.onsetFrame) {
                    record(clip, eventId: id, status: status)
                } else {
                    unmatchedClips[clip.onsetFrame] = clip
                }
            case let .clipFailed(reason):
                logger.warning("event clip not saved: \(reason)", metadata: sessionMetadata)
            case let .deviceLost(reason, _):
                audioFiles.audioStopped()
                logger.error(
                    "capture device lost: \(reason); the gap starts at the last frame received, waiting for audio",
                    metadata: sessionMetadata.merging(["message_id": "\(MessageID.deviceLost)"]) { $1 })
                status { $0.handle(.deviceLost); $0.lastError = reason }
            case let .outOfTime(reason, from, audioEnd):
                audioFiles.audioStopped()
                logger.error(
                    "capture out of time: \(reason); the audio from \(StoredDate.text(from)) UTC on (recorded up to \(StoredDate.text(audioEnd))) is a gap, and what the source sends is discarded until it keeps time",
                    metadata: sessionMetadata.merging(["message_id": "\(MessageID.deviceLost)"]) { $1 })
                status { $0.handle(.deviceLost); $0.lastError = "capture out of time: \(reason)" }
            case let .deviceRestored(lostAt, at, _, .outOfTime):
                storeGap(from: lostAt, to: at, reason: Self.outOfTimeReason)
                logger.notice(
                    "capture keeps time again: audio recorded after a gap of \(String(format: "%.1f", at.timeIntervalSince(lostAt))) s; clock re-anchored to the wall clock",
                    metadata: sessionMetadata.merging(["message_id": "\(MessageID.deviceRestored)"]) { $1 })
                status { $0.handle(.deviceRestored); $0.lastError = nil }
            case let .outageOpenAtStop(lostAt, until, cause):
                let reason = cause == .deviceLost ? Self.deviceLostReason : Self.outOfTimeReason
                storeGap(from: lostAt, to: until, reason: "\(reason), still when the session ended")
                // The session lasted until the stop: it ends there, the outage a gap inside it.
                noteData(until)
            case let .deviceRestored(lostAt, at, drift, .deviceLost):
                storeGap(from: lostAt, to: at, reason: Self.deviceLostReason)
                logger.notice(
                    "capture device back: audio again after a gap of \(String(format: "%.1f", at.timeIntervalSince(lostAt))) s; clock re-anchored to the wall clock (drift \(milliseconds(drift)))",
                    metadata: sessionMetadata.merging([
                        "message_id": "\(MessageID.deviceRestored)", "footstep.clock_drift_ms": "\(Int((drift * 1000).rounded()))",
                    ]) { $1 })
                status { $0.handle(.deviceRestored); $0.lastError = nil }
            case let .audioWriteFailed(reason, at):
                audioFiles.audioStopped()
                beginAudioGap(at: at, reason: "audio not written: \(reason)")
                logger.critical("audio writing suspended: \(reason); events and levels are still recorded", metadata: sessionMetadata)
                status { $0.audioWriting = false; $0.lastError = reason }
            case let .audioWriteResumed(at):
                endAudioGap(at: at)
                logger.notice("audio writing resumed", metadata: sessionMetadata)
                status { $0.audioWriting = true; $0.lastError = nil }
            case let .audioSuspended(at):
                audioFiles.audioStopped()
                beginAudioGap(at: at, reason: "audio not written: free disk space below the reserve")
            case let .audioUnsuspended(at):
                endAudioGap(at: at)
            case let .paused(at):
                // A paused stretch is not recorded: a gap, so that coverage neither counts nor hides it.
                endAudioGap(at: at)
                beginAudioGap(at: at, reason: Self.pausedReason)
            case let .resumed(at):
                endAudioGap(at: at)
            case let .overrun(droppedPeriods, xruns):
                // The capture thread reports changes of the counters at most every 10 s.
                logger.warning(
                    "capture overrun: \(droppedPeriods) periods dropped (pipeline behind), \(xruns) device xruns so far",
                    metadata: sessionMetadata.merging(
                        ["capture.dropped_periods": "\(droppedPeriods)", "capture.xruns": "\(xruns)"]) { $1 })
                status { $0.droppedPeriods = droppedPeriods; $0.xruns = xruns }
            case let .dropped(frames, from, to):
                let seconds = to.timeIntervalSince(from)
                let reason = "capture: \(frames) frames (\(String(format: "%.2f", seconds)) s) dropped, analysis fell behind"
                storeGap(from: from, to: to, reason: reason)
                logger.warning(
                    "\(reason): recorded as a gap",
                    metadata: sessionMetadata.merging(["capture.dropped_frames": "\(frames)"]) { $1 })
            case let .invalidSamples(total):
                // The capture thread reports changes at most every 10 s.
                logger.warning(
                    "\(total) samples so far were not numbers or beyond ±\(Int(SampleSanity.limit)) (60 dB over full scale): analysed and recorded as silence; check the device's format",
                    metadata: sessionMetadata.merging(["capture.invalid_samples": "\(total)"]) { $1 })
                status { $0.invalidSamples = total }
            case let .failed(reason):
                failure = reason
                logger.error("capture stopped: \(reason)", metadata: sessionMetadata)
            }
        }
        if let lastReading { status { $0.level = lastReading } }
    }

    private func record(_ clip: EventClipRecorder.Clip, eventId: Int64, status: StatusUpdate) {
        do {
            let checksum = try FileChecksum.sha256(ofFileAt: clip.path)
            try database.setEventClip(eventId, path: clip.path, sha256: checksum)
            status { $0.storedClips += 1 }
        } catch {
            logger.error("cannot record the clip \(clip.path) of event \(eventId): \(error)", metadata: sessionMetadata)
        }
    }

    private func newEvent(_ event: AnalyzedEvent, timestamp: Date) -> NewEvent {
        NewEvent(
            event, sessionId: sessionId, audioFileId: audioFiles.file(at: event.onsetFrame), frameOffset: event.onsetFrame,
            timestamp: timestamp)
    }

    /// Records the open file's progress so a crash leaves its extent in the store.
    func recordProgress(framesWritten: Int64) { audioFiles.recordProgress(framesWritten: framesWritten) }

    /// Writes the pending events (one transaction, extending the hash chain),
    /// logs each to the journal, publishes it live, counts it for today and
    /// groups footsteps into bouts; with `levels`, also the pending level intervals.
    mutating func flush(levels: Bool = true, status: StatusUpdate) {
        audioFiles.retryPendingCloses()
        if !pendingEvents.isEmpty {
            do {
                let ids = try database.appendEvents(pendingEvents)
                for (id, event) in zip(ids, pendingEvents) { logEvent(id: id, event) }
                storedEvents += ids.count
                let stored = (try? database.events(ids: ids)) ?? []
                for event in stored { didStore(event, status: status) }
                // The latest by onset.
                if let last = stored.max(by: { $0.timestamp < $1.timestamp }) {
                    status { if ($0.lastEvent?.timestamp ?? .distantPast) <= last.timestamp { $0.lastEvent = last } }
                }
                pendingEvents.removeAll(keepingCapacity: true)
                failedFlushes = 0
            } catch {
                // Kept and retried every tick (the disk may be full for a while); only an
                // absurd backlog is given up, oldest first, and said so.
                failedFlushes += 1
                if failedFlushes == 1 || failedFlushes % 100 == 0 {
                    logger.error("cannot store \(pendingEvents.count) events (attempt \(failedFlushes)): \(error)", metadata: sessionMetadata)
                }
                if pendingEvents.count > 100_000 {
                    logger.critical("dropping \(pendingEvents.count - 100_000) unstored events", metadata: sessionMetadata)
                    pendingEvents.removeFirst(pendingEvents.count - 100_000)
                }
            }
        }
        // Only once their events are stored: a revision finds its event by onset frame.
        if pendingEvents.isEmpty {
            revisions.store(status: status, publish: feeds.events.publish)
            settle(status: status)
        }
        if levels, !pendingLevels.isEmpty {
            do {
                let ids = try database.appendLevels(pendingLevels)
                let count = ids.count
                status { $0.storedLevels += count }
                pendingLevels.removeAll(keepingCapacity: true)
            } catch {
                logger.error("cannot store level intervals: \(error)", metadata: sessionMetadata)
                if pendingLevels.count > 1000 {
                    logger.critical("dropping \(pendingLevels.count) unstored level minutes", metadata: sessionMetadata)
                    pendingLevels.removeAll()
                }
            }
        }
    }

    private mutating func didStore(_ event: EventRecord, status: StatusUpdate) {
        guard let id = event.id else { return }
        let label = event.kind.label(event.type)
        status {
            $0.storedEvents += 1
            $0.countToday(label: label, timestamp: event.timestamp)
        }
        feeds.events.publish(event)
        if let clip = unmatchedClips.removeValue(forKey: event.frameOffset) {
            record(clip, eventId: id, status: status)
        } else {
            eventIdsByOnset[event.frameOffset] = id
            if eventIdsByOnset.count > 512 {
                // Clips come within seconds; forget events whose clip failed a minute ago.
                let horizon = event.frameOffset - Int64(60 * sampleRate)
                eventIdsByOnset = eventIdsByOnset.filter { $0.key >= horizon }
            }
        }
        if provisionalFrames.remove(event.frameOffset) != nil {
            unsettled[event.frameOffset] = event
        } else if event.kind == .footstep, let bout = bouts.add(event, sampleRate: sampleRate) {
            store(bout, status: status)
        }
    }

    /// Hands the settled provisional events that are footsteps to the bouts.
    private mutating func settle(status: StatusUpdate) {
        for settlement in settlements {
            guard var event = unsettled.removeValue(forKey: settlement.onsetFrame), settlement.kind == .footstep
            else { continue }
            event.revisedKind = settlement.kind
            event.revisedType = settlement.type
            if let bout = bouts.add(event, sampleRate: sampleRate) { store(bout, status: status) }
        }
        settlements.removeAll(keepingCapacity: true)
        if unsettled.count > 512, let newest = unsettled.keys.max() {
            // Settlements come within seconds; forget events whose settlement was lost a minute ago.
            let horizon = newest - Int64(60 * sampleRate)
            unsettled = unsettled.filter { $0.key >= horizon }
        }
    }

    /// Starts a stretch without audio (events and levels go on), unless one is open.
    private mutating func beginAudioGap(at: Date, reason: String) {
        if audioGap == nil { audioGap = (at, reason) }
    }

    /// Ends the stretch without audio at `at` and stores it as a gap.
    private mutating func endAudioGap(at: Date) {
        guard let (start, reason) = audioGap else { return }
        audioGap = nil
        guard at > start else { return }
        storeGap(from: start, to: at, reason: reason)
    }

    /// Stores a stretch of the session without audio; a store that refuses it is logged (the
    /// session goes on).
    private func storeGap(from: Date, to: Date, reason: String) {
        do {
            try database.addGap(sessionId: sessionId, from: from, to: to, reason: reason)
        } catch {
            logger.error("cannot record the gap (\(reason)): \(error)", metadata: sessionMetadata)
        }
    }

    /// Ends the session's bookkeeping: a last flush, what could not be stored is
    /// said exactly, the open stretch without audio and the open bout are stored,
    /// clips never matched are reported.
    mutating func finish(status: StatusUpdate) {
        flush(status: status)
        if !pendingEvents.isEmpty { flush(status: status) }  // one more try: a retention sweep may have made room
        if (!pendingEvents.isEmpty || !pendingLevels.isEmpty), let journal {
            do {
                try journal.write(events: pendingEvents, levels: pendingLevels)
                journaled = pendingEvents.count + pendingLevels.count
                logger.critical(
                    "the store refused \(pendingEvents.count) events and \(pendingLevels.count) level minutes: kept in \(journal.path), stored at the next start",
                    metadata: sessionMetadata.merging([
                        "footstep.journaled_events": "\(pendingEvents.count)",
                        "footstep.journaled_levels": "\(pendingLevels.count)",
                    ]) { $1 })
                pendingEvents.removeAll()
                pendingLevels.removeAll()
            } catch {
                logger.critical("cannot keep what the store refused in \(journal.path): \(error)", metadata: sessionMetadata)
            }
        }
        if !pendingEvents.isEmpty {
            // Nothing more can be done here: say exactly what is lost.
            let times = pendingEvents.map(\.timestamp)
            let footsteps = pendingEvents.filter { $0.kind == .footstep }.count
            logger.critical(
                "\(pendingEvents.count) events (\(footsteps) footsteps) from \(StoredDate.text(times.min()!)) to \(StoredDate.text(times.max()!)) UTC could not be stored and are lost: the store refused every write (disk full?)",
                metadata: sessionMetadata.merging(["footstep.lost_events": "\(pendingEvents.count)"]) { $1 })
            pendingEvents.removeAll()
        }
        revisions.abandon()
        if !pendingLevels.isEmpty {
            logger.critical(
                "\(pendingLevels.count) level minutes could not be stored and are lost (disk full?)", metadata: sessionMetadata)
            pendingLevels.removeAll()
        }
        if let gap = audioGap { endAudioGap(at: max(gap.start, lastDataTime ?? Date())) }
        if let bout = bouts.finish() { store(bout, status: status) }
        for clip in unmatchedClips.values {
            logger.warning("clip \(clip.path) has no stored event; left on disk", metadata: sessionMetadata)
        }
        unmatchedClips.removeAll()
    }

    private func store(_ bout: BoutRecorder.Bout, status: StatusUpdate) {
        do {
            try database.appendBout(bout.record(sessionId: sessionId), eventIds: bout.eventIds)
            status { $0.storedBouts += 1 }
        } catch {
            logger.error("cannot store a gait bout: \(error)", metadata: sessionMetadata)
        }
    }

    private func logEvent(id: Int64, _ event: NewEvent) {
        let label = event.kind.label(event.type)
        logger.info(
            "\(label) at \(event.timestamp.formatted(.iso8601)), \(String(format: "%.1f", event.laMax)) dB(A), confidence \(String(format: "%.2f", event.confidence))",
            metadata: [
                "footstep.session": "\(sessionId)",
                "footstep.event_id": "\(id)",
                "footstep.type": "\(label)",
                "footstep.confidence": "\(String(format: "%.2f", event.confidence))",
                "footstep.level_dba": "\(String(format: "%.1f", event.laMax))",
            ])
    }
}

/// `+12 ms`, `-1.250 s`.
func milliseconds(_ seconds: Double) -> String {
    abs(seconds) < 1 ? String(format: "%+.0f ms", seconds * 1000) : String(format: "%+.3f s", seconds)
}
