import FootstepAudio
import FootstepConfiguration
import FootstepStore
import Foundation

/// One session's run, from its first tick to its end, owned by the service task: the capture
/// thread's worker, the sink that stores what it reports, the loop's timers, and why the session
/// ends. The state machine decides what each command does (``DaemonStateMachine/command(_:in:)``)
/// and when the session must end; the run carries it out.
struct SessionRun {
    let service: FootstepDaemonService
    let database: FootstepDatabase
    let sessionId: Int64
    /// The wall-clock instant of the session's first frame.
    let anchor: Date
    let worker: CaptureWorker
    private var sink: SessionSink
    private var timers: SessionTimers
    private var lastWatchdogHeartbeat: Int64 = -1
    /// Why the session ends, once a stop is asked for (nil: it runs, or its source ends by itself).
    private var end: SessionEnd?

    init(
        service: FootstepDaemonService, database: FootstepDatabase, sessionId: Int64, anchor: Date, format: AudioFormat,
        worker: CaptureWorker, configuration: DaemonConfiguration
    ) {
        self.service = service
        self.database = database
        self.sessionId = sessionId
        self.anchor = anchor
        self.worker = worker
        sink = SessionSink(
            database: database.checkingRules(service.ruleWatch), sessionId: sessionId, sampleRate: format.sampleRate,
            channels: format.channels, logger: service.logger,
            feeds: SessionSink.Feeds(
                levels: service.liveLevels, events: service.liveEvents,
                calibrated: configuration.levels.calibrationOffset != 0),
            journal: PendingJournal(directory: configuration.stateDirectory))
        timers = SessionTimers(
            flush: .seconds(service.options.flushInterval), watchdog: service.notifier.watchdogInterval.map { $0 / 2 },
            status: .seconds(service.options.statusInterval), housekeeping: service.housekeepingPeriod)
    }

    /// Turns until the capture thread has finished: commands, housekeeping, the thread's reports
    /// into the store, the watchdog and `STATUS=`.
    mutating func run(callers: inout WaitingCallers, housekeeping: inout Housekeeping) async {
        while true {
            await service.wakeup.wait(until: timers.next)
            service.runWrites(database)
            carryOut(service.takeCommands(), callers: &callers)
            let now = ContinuousClock.now
            if timers.due(.housekeeping, at: now) {
                housekeeping.tick(configuration: service.configuration, status: service.update)
                worker.setAudioSuspended(housekeeping.storage.diskLow)
            }
            let machine = service.machine
            if let reason = machine.sessionMustEnd(
                shuttingDown: service.isShuttingDown, scheduleOpen: housekeeping.scheduleActive)
            {
                requestStop(reason, log: reason == .scheduleClosed)
            }
            let finished = worker.isFinished
            worker.setMeterWatched(service.liveLevels.subscriberCount > 0)
            sink.handle(worker.takeReports(), status: service.update)
            // Events at once (live subscribers wait for them), levels in batches.
            sink.flush(levels: timers.due(.flush, at: now) || finished, status: service.update)
            let frames = worker.capturedFrames
            service.update { $0.capturedFrames = frames }
            if timers.due(.watchdog, at: now) {
                // Only while the capture thread turns: it turns with each block of audio
                // and, during an outage it is recording as a gap, at least every stall
                // timeout. A thread stuck anywhere else trips the watchdog.
                let heartbeat = worker.heartbeat
                if heartbeat > lastWatchdogHeartbeat {
                    service.notifier.watchdog()
                    lastWatchdogHeartbeat = heartbeat
                }
            }
            if timers.due(.progress, at: now) { sink.recordProgress(framesWritten: worker.writtenFrames) }
            if timers.due(.status, at: now) { service.notifier.status(service.status.line) }
            if finished { return }
        }
    }

    /// Stores what is left, ends the session in the store with its reason, and answers the
    /// callers waiting for its end. Returns true when the source ended by itself.
    /// - Throws: ``DaemonError/captureFailed(_:)`` when the capture thread stopped on an error.
    mutating func finish(callers: inout WaitingCallers, housekeeping: inout Housekeeping) throws -> Bool {
        let logger = service.logger
        sink.finish(status: service.update)
        if sink.journaled > 0 { service.noteLeftAside(sink.journaled) }
        housekeeping.tick(configuration: service.configuration, status: service.update)  // retention for the last file
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
        service.update {
            $0.sessionId = nil
            $0.sessionTitle = nil
            $0.sessionStartedAt = nil
            $0.level = nil
            $0.handle(.sessionEnded)
        }
        for ticket in callers.awaitingEnd { service.reply(ticket, .stopped(session: sessionId)) }
        callers.awaitingEnd.removeAll()
        if let failure = sink.failure, end == nil { throw DaemonError.captureFailed(failure) }
        return end == nil
    }

    /// Carries out the commands, as the state machine decides them for an open session.
    private mutating func carryOut(
        _ commands: [(ticket: CommandMailbox.Ticket, command: DaemonCommand)], callers: inout WaitingCallers
    ) {
        for (ticket, command) in commands {
            switch service.decide(command, in: DaemonStateMachine.Situation(session: sessionId)) {
            case let .reply(outcome):
                service.reply(ticket, outcome)
            case .awaitStart:
                callers.awaitingStart.append((ticket, command))
            case .endSession:
                callers.awaitingEnd.append(ticket)
                requestStop(.stopCommand, log: false)
            case let .setPaused(pause):
                service.setPaused(pause, worker: worker, session: sessionId, database: database)
                service.reply(ticket, pause ? .paused(session: sessionId) : .resumed(session: sessionId))
            case let .calibrate(offsetDB, _):
                service.setCalibration(offsetDB)
                callers.awaitingStart.append((ticket, command))
                requestStop(.calibrationChanged)
            }
        }
    }

    /// Asks the capture thread to stop, once, remembering why.
    private mutating func requestStop(_ reason: SessionEnd, log: Bool = true) {
        guard end == nil else { return }
        if log {
            service.logger.notice(
                "session \(sessionId) ends: \(reason.reason)", metadata: ["footstep.session": "\(sessionId)"])
        }
        end = reason
        worker.requestStop()
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
