import FootstepAudio
import FootstepClassifier
import FootstepConfiguration
import FootstepStore
import Foundation
import Logging

extension FootstepDaemonService {
    /// How opening the source ended.
    enum OpenedSource {
        case opened(any AudioSource)
        /// Shutdown, or a `stop` while the device could not be opened.
        case abandoned
    }

    /// Opens the source; an ALSA device that is missing is retried with
    /// backoff (0.5 s doubling to 4 s), carrying out commands meanwhile. A
    /// daemon waiting for its microphone is up: it sends `READY=1` (status
    /// "device-lost") and feeds the watchdog while it waits, so systemd does
    /// not time its start out.
    func openSource(
        _ configuration: DaemonConfiguration, database: FootstepDatabase, intent: inout SessionIntent,
        readySent: inout Bool
    ) async throws -> OpenedSource {
        var delay = 0.5
        while !isShuttingDown {
            let failure: AudioSourceError
            do {
                return .opened(
                    try source.open(
                        configuration: configuration, speed: options.speed, maximumFrames: options.maximumFrames,
                        ringPeriods: options.captureRingPeriods))
            } catch {
                guard case .alsa = source, case .deviceUnavailable = error else { throw DaemonError.captureFailed("\(error)") }
                failure = error
            }
            let reason = "\(failure)"
            update { $0.handle(.deviceLost); $0.lastError = reason }
            notifier.status(status.line)
            logger.error("capture device unavailable, retrying", metadata: ["error": "\(reason)"])
            if !readySent { await announceReady(&readySent) }
            notifier.watchdog()
            for (ticket, command) in intent.awaitingStart where command == .start {
                reply(ticket, .waitingForDevice(reason))
            }
            intent.awaitingStart.removeAll { $0.command == .start }
            let retryAt = ContinuousClock.now + .seconds(delay)
            while ContinuousClock.now < retryAt, !isShuttingDown {
                await wakeup.wait(until: retryAt)
                runWrites(database)
                handleBetweenSessions(takeCommands(), intent: &intent, scheduleOpen: true, deviceError: reason)
                if !intent.wantRunning { return .abandoned }
            }
            delay = min(delay * 2, 4)
        }
        return .abandoned
    }

    /// One session from start to stop. Returns true when the source ended.
    func runSession(
        database: FootstepDatabase, intent: inout SessionIntent, readySent: inout Bool, housekeeping: inout Housekeeping
    ) async throws -> Bool {
        let model = try loadModel(self.configuration)
        guard
            case let .opened(audio) = try await openSource(
                self.configuration, database: database, intent: &intent, readySent: &readySent)
        else {
            update { $0.handle(.waiting) }
            return false
        }
        // Read after opening: a calibration sent while the device was missing applies.
        let configuration = self.configuration
        let format = audio.format
        // A file or scenario may say when it was recorded; a device records now.
        let anchor = (source.isFinite ? options.sourceStartedAt : nil) ?? Date()
        if control.withLock({ $0.storedCalibrationOffset }) == nil {
            recordConfigurationCalibration(configuration, database: database, at: anchor)
        }
        let session = try database.createSession(
            startedAt: anchor, device: audio.name, sampleRate: format.sampleRate, channels: format.channels)
        let sessionId = session.id!
        let worker = CaptureWorker(
            source: audio, settings: captureSettings(configuration, session: sessionId, anchor: anchor), model: model,
            wakeup: wakeup)
        worker.setAudioSuspended(housekeeping.storage.diskLow)
        update {
            $0.handle(.sessionStarted)
            $0.sessionId = sessionId
            $0.sessionTitle = session.title
            $0.sessionStartedAt = session.startedAt
            $0.source = audio.name
            $0.sampleRate = format.sampleRate
            $0.channels = format.channels
            if case .alsa = source { $0.sampleFormat = configuration.capture.sampleFormat.rawValue } else { $0.sampleFormat = nil }
            $0.audioFormat = configuration.recording.audioFormat
            $0.capturedFrames = 0
            $0.level = nil
            if !$0.diskLow { $0.lastError = nil }
        }
        var paused = false
        if intent.paused { paused = setPaused(true, worker: worker, session: sessionId, database: database) }
        worker.start()
        logger.info(
            "session \(sessionId) started from \(audio.name) (\(format))",
            metadata: ["message_id": "\(MessageID.sessionStarted)", "footstep.session": "\(sessionId)"])
        for (ticket, command) in intent.awaitingStart {
            reply(ticket, command == .start ? .started(session: sessionId) : .calibrated(session: sessionId))
        }
        intent.awaitingStart.removeAll()
        await announceReady(&readySent)

        var sink = SessionSink(
            database: database.checkingRules(ruleWatch), sessionId: sessionId, sampleRate: format.sampleRate, channels: format.channels,
            logger: logger,
            feeds: SessionSink.Feeds(
                levels: liveLevels, events: liveEvents, calibrated: configuration.levels.calibrationOffset != 0),
            journal: PendingJournal(directory: configuration.stateDirectory))
        var timers = SessionTimers(
            flush: .seconds(options.flushInterval), watchdog: notifier.watchdogInterval.map { $0 / 2 },
            status: .seconds(options.statusInterval), housekeeping: housekeepingPeriod)
        var lastWatchdogHeartbeat: Int64 = -1
        /// Why the session ends, once a stop is asked for (nil: it runs, or its source ends by itself).
        var end: SessionEnd?
        var stopRequested: Bool { end != nil }
        func requestStop(_ reason: SessionEnd, log: Bool = true) {
            guard end == nil else { return }
            if log {
                logger.notice("session \(sessionId) ends: \(reason.reason)", metadata: ["footstep.session": "\(sessionId)"])
            }
            end = reason
            worker.requestStop()
        }
        while true {
            await wakeup.wait(until: timers.next)
            runWrites(database)
            for (ticket, command) in takeCommands() {
                switch command {
                case .start:
                    reply(ticket, .refused("already recording (session \(sessionId)); nothing to start"))
                case .stop:
                    intent.wantRunning = false
                    intent.awaitingEnd.append(ticket)
                    requestStop(.stopCommand, log: false)
                case .pause, .resume:
                    let pause = command == .pause
                    guard pause != paused else {
                        reply(ticket, .refused(pause ? "already paused" : "nothing to resume: the daemon is \(status.state.rawValue)"))
                        continue
                    }
                    intent.paused = pause
                    paused = setPaused(pause, worker: worker, session: sessionId, database: database)
                    reply(ticket, pause ? .paused(session: sessionId) : .resumed(session: sessionId))
                case let .calibrate(offsetDB):
                    setCalibration(offsetDB)
                    intent.awaitingStart.append((ticket, command))
                    requestStop(.calibrationChanged)
                }
            }
            let now = ContinuousClock.now
            if timers.due(.housekeeping, at: now) {
                housekeeping.tick(configuration: self.configuration, status: update)
                worker.setAudioSuspended(housekeeping.storage.diskLow)
            }
            if isShuttingDown {
                requestStop(.shutdown, log: false)
            } else if !intent.wantRunning {
                requestStop(.stopCommand, log: false)
            } else if !housekeeping.scheduleActive {
                requestStop(.scheduleClosed)
            }
            let finished = worker.isFinished
            worker.setMeterWatched(liveLevels.subscriberCount > 0)
            sink.handle(worker.takeReports(), status: update)
            // Events at once (live subscribers wait for them), levels in batches.
            sink.flush(levels: timers.due(.flush, at: now) || finished, status: update)
            let frames = worker.capturedFrames
            update { $0.capturedFrames = frames }
            if timers.due(.watchdog, at: now) {
                // Only while the capture thread turns: it turns with each block of audio
                // and, during an outage it is recording as a gap, at least every stall
                // timeout. A thread stuck anywhere else trips the watchdog.
                let heartbeat = worker.heartbeat
                if heartbeat > lastWatchdogHeartbeat {
                    notifier.watchdog()
                    lastWatchdogHeartbeat = heartbeat
                }
            }
            if timers.due(.progress, at: now) { sink.recordProgress(framesWritten: worker.writtenFrames) }
            if timers.due(.status, at: now) { notifier.status(status.line) }
            if finished { break }
        }
        sink.finish(status: update)
        if sink.journaled > 0 { noteLeftAside(sink.journaled) }
        housekeeping.tick(configuration: self.configuration, status: update)  // retention for the last file
        let endedAt = max(anchor, sink.lastDataTime ?? Date())
        let ended = end ?? sink.failure.map(SessionEnd.captureFailed) ?? .sourceEnded
        do {
            try database.endSession(sessionId, at: endedAt, status: .completed, reason: ended.reason)
        } catch {
            // A full disk must not take the daemon down: the next start-up closes it as interrupted.
            logger.critical(
                "cannot end session \(sessionId) in the store: \(error)", metadata: ["footstep.session": "\(sessionId)"])
        }
        // Marks whose window runs past the session's end: their audio is complete now.
        housekeeping.storage.markClips.cutDue()
        logger.info(
            "session \(sessionId) completed (\(ended.reason)): \(sink.storedEvents) events, \(sink.storedRevisions) type revisions, \(worker.capturedFrames) frames",
            metadata: ["message_id": "\(MessageID.sessionEnded)", "footstep.session": "\(sessionId)"])
        update {
            $0.sessionId = nil
            $0.sessionTitle = nil
            $0.sessionStartedAt = nil
            $0.level = nil
            $0.handle(.sessionEnded)
        }
        for ticket in intent.awaitingEnd { reply(ticket, .stopped(session: sessionId)) }
        intent.awaitingEnd.removeAll()
        if let failure = sink.failure, !stopRequested { throw DaemonError.captureFailed(failure) }
        return !stopRequested
    }

    /// Pauses or resumes the capture thread, the session's row and the state; returns `paused`.
    private func setPaused(_ paused: Bool, worker: CaptureWorker, session: Int64, database: FootstepDatabase) -> Bool {
        worker.setPaused(paused)
        try? database.setSessionStatus(session, paused ? .paused : .recording)
        update { $0.handle(paused ? .paused : .resumed) }
        logger.info("session \(session) \(paused ? "paused" : "resumed")", metadata: ["footstep.session": "\(session)"])
        return paused
    }

    /// Records the configuration file's offset as a calibration (without a reference measurement).
    private func recordConfigurationCalibration(_ configuration: DaemonConfiguration, database: FootstepDatabase, at anchor: Date) {
        do {
            let calibration = try database.recordConfigurationCalibration(
                offsetDB: configuration.levels.calibrationOffset, at: anchor)
            if let calibration, calibration.measuredAt == anchor {
                logger.notice(
                    "levels calibrated from the configuration file: offset \(calibration.offsetDB) dB (levels.calibration_offset, no reference measurement)")
            }
        } catch {
            logger.error("cannot record the configuration's calibration offset: \(error)")
        }
    }

    /// The capture thread's settings for a session.
    private func captureSettings(
        _ configuration: DaemonConfiguration, session: Int64, anchor: Date
    ) -> CaptureWorker.Settings {
        var reopen: (@Sendable () throws(AudioSourceError) -> any AudioSource)?
        if case .alsa = source {
            let choice = source
            reopen = { () throws(AudioSourceError) in
                try choice.open(configuration: configuration, speed: nil, maximumFrames: nil)
            }
        }
        return CaptureWorker.Settings(
            sessionId: session, anchor: anchor, analysis: configuration.analysisConfiguration,
            audioDirectory: configuration.audioDirectory, container: configuration.recording.audioFormat,
            encoding: configuration.recording.bitDepth,
            rollInterval: configuration.recording.rollInterval, syncInterval: configuration.recording.syncInterval,
            reopen: reopen, audioRetryInterval: options.audioRetryInterval,
            clipDirectory: configuration.clipDirectory,
            clipBefore: configuration.recording.clipBefore, clipAfter: configuration.recording.clipAfter,
            reanchorAtRoll: options.reanchorAtRoll ?? (reopen != nil), paceAllowance: paceAllowance(configuration))
    }

    /// How far, seconds, a live device's audio may run ahead of the wall clock before it
    /// is out of time (`CapturePace`): what its buffer and the hand-off ring hold, and a
    /// second. Nil where the pace is not checked: files, the demo, a device a test paces.
    private func paceAllowance(_ configuration: DaemonConfiguration) -> Double? {
        guard case .alsa = source, options.speed == nil else { return nil }
        let capture = configuration.capture
        var alsa = ALSACaptureConfiguration(sampleRate: capture.sampleRate, periodFrames: capture.periodFrames)
        if let ring = options.captureRingPeriods { alsa.ringPeriods = ring }
        return Double((alsa.ringPeriods + alsa.bufferPeriods) * alsa.effectivePeriodFrames) / Double(capture.sampleRate) + 1
    }
}

/// The session loop's timers: when each chore is next due.
struct SessionTimers {
    enum Chore: CaseIterable {
        /// Write the batched level intervals.
        case flush
        /// Ping systemd's watchdog (at half its interval).
        case watchdog
        /// Store the session's progress (frames written).
        case progress
        /// Send `STATUS=`.
        case status
        /// Follow the schedule, check free space, apply retention.
        case housekeeping
    }

    private var periods: [Chore: Duration] = [:]
    private var dueAt: [Chore: ContinuousClock.Instant] = [:]

    /// A nil period leaves that chore out (no watchdog configured).
    init(flush: Duration, watchdog: Duration?, status: Duration, housekeeping: Duration, now: ContinuousClock.Instant = .now) {
        periods = [.flush: flush, .progress: .seconds(5), .status: status, .housekeeping: housekeeping]
        if let watchdog { periods[.watchdog] = watchdog }
        for (chore, period) in periods { dueAt[chore] = now + period }
    }

    /// The earliest instant a chore is due.
    var next: ContinuousClock.Instant { dueAt.values.min() ?? .now + .seconds(1) }

    /// True when `chore` is due at `now`; it is then due again one period later.
    mutating func due(_ chore: Chore, at now: ContinuousClock.Instant) -> Bool {
        guard let at = dueAt[chore], let period = periods[chore], now >= at else { return false }
        dueAt[chore] = now + period
        return true
    }
}
