import FootstepAPI
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepConfiguration
import FootstepCore
import FootstepStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon: one service whose `run()` owns the whole flow (source →
/// pipeline → rolling audio → store, journald, sd_notify), so producer and
/// consumer stop together on graceful shutdown.
///
/// At start-up it repairs unfinished audio files and closes sessions left
/// open by a crash as `interrupted`, then starts a session (when the
/// monitoring schedule wants one) and sends `READY=1` once capture and the
/// store are up. Capture runs on its own thread (`CaptureWorker`); this task
/// drains it every 100 ms, stores events at once (then publishes them on
/// `liveEvents`) and levels in batches (at most `flushInterval` late),
/// publishes the live meter on `liveLevels`, pings the watchdog only while
/// the capture thread turns (or while idle on purpose), watches free space and applies
/// retention (`Housekeeping`), and ends the session as `completed` on stop,
/// at the end of a schedule window or on shutdown. A finite source (file,
/// scenario) ends the run at its end.
public final class FootstepDaemonService: Service, Sendable {
    private struct Control {
        var configuration: DaemonConfiguration
        var wantRunning = true
        var wantPaused = false
        var status = DaemonStatus()
        var database: FootstepDatabase?
        /// The latest `footstepctl calibrate` result; it wins over `levels.calibration_offset`.
        var storedCalibrationOffset: Double?
        /// End the current session and start a new one (the calibration changed).
        var restartRequested = false
        /// True once the control socket listens; READY=1 waits for it (up to 5 s).
        var controlReady: (@Sendable () -> Bool)?
        /// Callers of ``waitForStatus(within:until:)`` not yet answered.
        var statusWaiters: [StatusWaiter] = []
        var nextWaiterID: UInt64 = 0
    }

    /// A caller waiting until the status satisfies `isDone`.
    private struct StatusWaiter {
        var id: UInt64
        var isDone: @Sendable (DaemonStatus) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    public let source: SourceChoice
    public let options: DaemonOptions
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let control: Mutex<Control>
    private let shuttingDown = Atomic<Bool>(false)
    /// Live A-weighted levels, about 8 readings per second, for `/v1/levels/live`.
    public let liveLevels = LiveBroadcast<LiveLevelReading>()
    /// Events as they are stored (with their row id), for `/v1/events/live`.
    public let liveEvents = LiveBroadcast<EventRecord>()

    public init(
        configuration: DaemonConfiguration, source: SourceChoice, options: DaemonOptions = DaemonOptions(),
        logger: Logger, notifier: SystemdNotifier = SystemdNotifier()
    ) {
        self.source = source
        self.options = options
        self.logger = logger
        self.notifier = notifier
        self.control = Mutex(Control(configuration: configuration.applying(options)))
    }

    // MARK: Control (for the control socket)

    /// A snapshot of the daemon's state.
    public var status: DaemonStatus { control.withLock { $0.status } }
    /// The configuration in force (the next session uses a reloaded one).
    public var configuration: DaemonConfiguration {
        control.withLock { control in
            var configuration = control.configuration
            if let offset = control.storedCalibrationOffset { configuration.levels.calibrationOffset = offset }
            return configuration
        }
    }
    /// The evidence store, once `run()` has opened it (nil before).
    public var database: FootstepDatabase? { control.withLock { $0.database } }

    /// Starts a session if none is running.
    public func start() { control.withLock { $0.wantRunning = true; $0.wantPaused = false } }
    /// Ends the current session as `completed`; the daemon stays up, idle.
    public func stop() { control.withLock { $0.wantRunning = false } }
    /// Pauses the session: frames are read and dropped, no audio is written.
    public func pause() { control.withLock { $0.wantPaused = true } }
    /// Resumes a paused session (a new audio file, the clock re-anchored).
    public func resume() { control.withLock { $0.wantPaused = false } }

    /// Replaces the configuration (already validated); capture settings apply
    /// from the next session.
    public func reload(_ configuration: DaemonConfiguration) {
        control.withLock { $0.configuration = configuration.applying(options) }
    }

    /// Reads, validates (the file, and its effective paths against the machine)
    /// and applies the configuration file at `path`; on any error the running
    /// configuration stays. Both SIGHUP and `POST /v1/config/reload` come here.
    public func reload(from path: String) throws(ConfigurationError) {
        let configuration = try DaemonConfiguration.load(path: path)
        try configuration.applying(options).checkEnvironment(file: path)
        try configuration.checkMetricsAddress(file: path)
        reload(configuration)
    }

    /// Makes `READY=1` wait (at most 5 s) until `isReady` returns true: the
    /// control socket listens. Set before `run()`.
    public func setControlReadiness(_ isReady: @escaping @Sendable () -> Bool) {
        control.withLock { $0.controlReady = isReady }
    }

    /// Waits until the control socket listens, at most 5 s (a daemon whose
    /// socket cannot start still records, and says so in the journal).
    private func waitForControlSocket() async {
        guard let isReady = control.withLock({ $0.controlReady }) else { return }
        let deadline = ContinuousClock.now + .seconds(5)
        while !isReady() {
            guard ContinuousClock.now < deadline, !isShuttingDown else {
                logger.warning("the control socket is not listening; sending READY=1 anyway")
                return
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Applies a new calibration (already stored by the caller): it wins over
    /// the configuration file's `levels.calibration_offset` from now on, also
    /// after a reload or restart. A running session ends and a new one starts,
    /// so that no session mixes calibrated and uncalibrated levels.
    public func applyCalibration(offsetDB: Double) {
        control.withLock {
            $0.storedCalibrationOffset = offsetDB
            if $0.status.sessionId != nil { $0.restartRequested = true }
        }
        logger.notice("calibration offset \(offsetDB) dB applied; a new session starts with it")
    }

    /// The one way the status changes; answers the waiters it satisfies.
    private func update(_ body: (inout DaemonStatus) -> Void) {
        let satisfied: [StatusWaiter] = control.withLock { control in
            body(&control.status)
            guard !control.statusWaiters.isEmpty else { return [] }
            let status = control.status
            let done = control.statusWaiters.filter { $0.isDone(status) }
            if !done.isEmpty { control.statusWaiters.removeAll { waiter in done.contains { $0.id == waiter.id } } }
            return done
        }
        for waiter in satisfied { waiter.continuation.resume(returning: true) }
    }

    /// Waits until the daemon's status satisfies `isDone` (checked at each
    /// change, not by polling); false when `within` passes first.
    public func waitForStatus(within timeout: Duration, until isDone: @escaping @Sendable (DaemonStatus) -> Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id: UInt64? = control.withLock { control in
                if isDone(control.status) { return nil }
                control.nextWaiterID += 1
                control.statusWaiters.append(StatusWaiter(id: control.nextWaiterID, isDone: isDone, continuation: continuation))
                return control.nextWaiterID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                let expired = control.withLock { control -> StatusWaiter? in
                    guard let index = control.statusWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return control.statusWaiters.remove(at: index)
                }
                expired?.continuation.resume(returning: false)
            }
        }
    }

    // MARK: Run

    public func run() async throws {
        let configuration = self.configuration
        let database = try openStore(configuration)
        let storedCalibration = try? database.latestMeasuredCalibration()
        // The interrupted session measured with the calibration in force now (a new one starts a new session).
        var recoveryConfiguration = configuration
        if let storedCalibration { recoveryConfiguration.levels.calibrationOffset = storedCalibration.offsetDB }
        try StartupRecovery(
            database: database, audioDirectory: configuration.audioDirectory, clipDirectory: configuration.clipDirectory,
            clipBefore: configuration.recording.clipBefore, clipAfter: configuration.recording.clipAfter,
            analysis: recoveryConfiguration.analysisConfiguration, model: { try self.loadModel(configuration) },
            minimumConfidence: configuration.detection.minimumConfidence, logger: logger
        ).run()
        control.withLock {
            $0.database = database
            $0.storedCalibrationOffset = storedCalibration?.offsetDB
        }
        if let storedCalibration {
            logger.info("levels calibrated: offset \(storedCalibration.offsetDB) dB, measured \(storedCalibration.measuredAt)")
        }
        var housekeeping = Housekeeping(configuration: configuration, database: database, options: options, logger: logger)
        var readySent = false
        var lastIdleWatchdog = ContinuousClock.now
        try await withGracefulShutdownHandler {
            while !isShuttingDown {
                housekeeping.tick(configuration: self.configuration, status: update)
                guard control.withLock({ $0.wantRunning }), housekeeping.scheduleActive else {
                    update { $0.handle(.waiting); $0.sessionId = nil }
                    if !readySent {
                        // Up and waiting (stopped, or outside the schedule's windows).
                        await waitForControlSocket()
                        notifier.ready(status: status.line)
                        readySent = true
                    }
                    // Idle on purpose: no frames are expected, the daemon is healthy.
                    if let interval = notifier.watchdogInterval, ContinuousClock.now - lastIdleWatchdog >= interval / 2 {
                        notifier.watchdog()
                        lastIdleWatchdog = .now
                    }
                    try? await Task.sleep(for: .milliseconds(200))
                    continue
                }
                let ended = try await runSession(database: database, readySent: &readySent, housekeeping: &housekeeping)
                if ended && (source.isFinite || options.maximumFrames != nil) { break }
            }
        } onGracefulShutdown: {
            self.shuttingDown.store(true, ordering: .releasing)
        }
        update { $0.handle(.shutdownRequested) }
        liveLevels.finishAll()
        liveEvents.finishAll()
        notifier.stopping(status: "stopping")
        logger.info("footstepd stopped", metadata: ["message_id": "\(MessageID.stopped)"])
    }

    private var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) || Task.isCancelled }

    /// Opens the store, first making the state directory private: whatever
    /// umask footstepd was started with, the files it creates are at most
    /// 0640 and its directories 0750 (umask 027), and the state, audio and clip
    /// directories are set to 0750 even when an earlier run or a person left
    /// them open.
    private func openStore(_ configuration: DaemonConfiguration) throws -> FootstepDatabase {
        umask(0o027)
        do {
            for directory in [configuration.audioDirectory, configuration.clipDirectory] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            for directory in [configuration.stateDirectory, configuration.audioDirectory, configuration.clipDirectory] {
                try FileManager.default.setAttributes([.posixPermissions: 0o750], ofItemAtPath: directory)
            }
        } catch {
            throw DaemonError("cannot create the state directory \(configuration.stateDirectory): \(error.localizedDescription)")
        }
        return try FootstepDatabase.open(path: configuration.databasePath, pageCacheKiB: Self.storePageCacheKiB)
    }

    /// The SQLite page cache of each of the daemon's store connections, in KiB.
    ///
    /// SQLite's default (2,000 KiB per connection) is never reached by a short
    /// run but is by a daemon: the writer keeps every page it has appended to,
    /// so its cache grew by about 1.5 MB per day of events and levels until the
    /// limit, and each reader can fill its own. The daemon's writes touch the
    /// last leaf and the interior pages of about 25 tables and indexes (well
    /// under 100 pages of 4 KiB); its reads (control-socket queries,
    /// housekeeping) start from a cache that a WAL commit by the writer has
    /// reset anyway. Pages beyond the budget are read again from the kernel's
    /// page cache.
    static let storePageCacheKiB = 512

    /// The classifier model: `detection.model_path`, or the built-in one.
    private func loadModel(_ configuration: DaemonConfiguration) throws -> FootstepModel {
        do {
            if let path = configuration.detection.modelPath {
                return try FootstepModel.load(contentsOf: URL(fileURLWithPath: path))
            }
            return try FootstepModel.bundled()
        } catch {
            throw DaemonError("\(error) (detection.model)")
        }
    }

    /// Opens the source; an ALSA device that is missing is retried with backoff.
    private func openSource(_ configuration: DaemonConfiguration) async throws -> (any AudioSource)? {
        var delay = 0.5
        while !isShuttingDown {
            do {
                let opened = try source.open(
                    configuration: configuration, speed: options.speed, maximumFrames: options.maximumFrames,
                    ringPeriods: options.captureRingPeriods)
                return opened
            } catch {
                guard case .alsa = source, case .deviceUnavailable = error else { throw DaemonError("\(error)") }
                update { $0.handle(.deviceLost); $0.lastError = "\(error)" }
                notifier.status(status.line)
                logger.error("capture device unavailable, retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(delay))
                delay = min(delay * 2, 4)
            }
        }
        return nil
    }

    /// One session from start to stop. Returns true when the source ended.
    private func runSession(
        database: FootstepDatabase, readySent: inout Bool, housekeeping: inout Housekeeping
    ) async throws -> Bool {
        let configuration = self.configuration
        let model = try loadModel(configuration)
        guard let audio = try await openSource(configuration) else { return false }
        let format = audio.format
        // A file or scenario may say when it was recorded; a device records now.
        let anchor = (source.isFinite ? options.sourceStartedAt : nil) ?? Date()
        if control.withLock({ $0.storedCalibrationOffset }) == nil {
            // The file's offset is a calibration too (without a reference measurement).
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
        let session = try database.createSession(
            startedAt: anchor, device: audio.name, sampleRate: format.sampleRate, channels: format.channels)
        let sessionId = session.id!
        var reopen: (@Sendable () throws(AudioSourceError) -> any AudioSource)?
        if case .alsa = source {
            let choice = source
            reopen = { () throws(AudioSourceError) in
                try choice.open(configuration: configuration, speed: nil, maximumFrames: nil)
            }
        }
        let worker = CaptureWorker(
            source: audio,
            settings: CaptureWorker.Settings(
                sessionId: sessionId, anchor: anchor, analysis: configuration.analysisConfiguration,
                audioDirectory: configuration.audioDirectory, container: configuration.recording.audioFormat,
                rollInterval: configuration.recording.rollInterval, syncInterval: configuration.recording.syncInterval,
                reopen: reopen, audioRetryInterval: options.audioRetryInterval, model: model,
                minimumConfidence: configuration.detection.minimumConfidence, clipDirectory: configuration.clipDirectory,
                clipBefore: configuration.recording.clipBefore, clipAfter: configuration.recording.clipAfter,
                reanchorAtRoll: options.reanchorAtRoll ?? (reopen != nil)))
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
        worker.start()
        logger.info(
            "session \(sessionId) started from \(audio.name) (\(format))",
            metadata: ["message_id": "\(MessageID.sessionStarted)", "footstep.session": "\(sessionId)"])
        if !readySent {
            await waitForControlSocket()
            notifier.ready(status: status.line)
            readySent = true
        } else {
            notifier.status(status.line)
        }

        var sink = SessionSink(
            database: database, sessionId: sessionId, sampleRate: format.sampleRate, channels: format.channels,
            logger: logger,
            feeds: SessionSink.Feeds(
                levels: liveLevels, events: liveEvents, calibrated: configuration.levels.calibrationOffset != 0))
        let watchdogInterval = notifier.watchdogInterval
        let clock = ContinuousClock()
        var lastFlush = clock.now
        var lastWatchdog = clock.now
        var lastWatchdogHeartbeat: Int64 = -1
        var lastStatus = clock.now
        var lastProgress = clock.now
        var paused = false
        var stopRequested = false
        while true {
            try? await Task.sleep(for: .milliseconds(100))
            let (wantRunning, wantPaused, restart) = control.withLock { control in
                defer { control.restartRequested = false }
                return (control.wantRunning, control.wantPaused, control.restartRequested)
            }
            if restart, !stopRequested {
                logger.notice("session \(sessionId) ends: the calibration changed", metadata: ["footstep.session": "\(sessionId)"])
                stopRequested = true
                worker.requestStop()
            }
            housekeeping.tick(configuration: self.configuration, status: update)
            worker.setAudioSuspended(housekeeping.storage.diskLow)
            if !stopRequested, isShuttingDown || !wantRunning || !housekeeping.scheduleActive {
                if !housekeeping.scheduleActive, !isShuttingDown, wantRunning {
                    logger.notice("session \(sessionId): the monitoring window closed", metadata: ["footstep.session": "\(sessionId)"])
                }
                stopRequested = true
                worker.requestStop()
            }
            if wantPaused != paused {
                paused = wantPaused
                worker.setPaused(paused)
                try? database.setSessionStatus(sessionId, paused ? .paused : .recording)
                update { $0.handle(paused ? .paused : .resumed) }
                logger.info("session \(sessionId) \(paused ? "paused" : "resumed")", metadata: ["footstep.session": "\(sessionId)"])
            }
            let finished = worker.isFinished
            sink.handle(worker.takeReports(), status: update)
            let now = clock.now
            // Events at once (live subscribers wait for them), levels in batches.
            let flushLevels = finished || now - lastFlush >= .seconds(options.flushInterval)
            sink.flush(levels: flushLevels, status: update)
            if flushLevels { lastFlush = now }
            let frames = worker.capturedFrames
            update { $0.capturedFrames = frames }
            if let watchdogInterval, now - lastWatchdog >= watchdogInterval / 2 {
                // Only while the capture thread turns: it turns with each block of audio
                // and, during an outage it is recording as a gap, at least every stall
                // timeout. A thread stuck anywhere else trips the watchdog.
                let heartbeat = worker.heartbeat
                if heartbeat > lastWatchdogHeartbeat {
                    notifier.watchdog()
                    lastWatchdogHeartbeat = heartbeat
                }
                lastWatchdog = now
            }
            if now - lastProgress >= .seconds(5) {
                sink.recordProgress(framesWritten: worker.writtenFrames)
                lastProgress = now
            }
            if now - lastStatus >= .seconds(options.statusInterval) {
                notifier.status(status.line)
                lastStatus = now
            }
            if finished { break }
        }
        sink.finish(status: update)
        housekeeping.tick(configuration: self.configuration, status: update)  // retention for the last file
        let endedAt = max(anchor, sink.lastDataTime ?? Date())
        do {
            try database.endSession(sessionId, at: endedAt, status: .completed)
        } catch {
            // A full disk must not take the daemon down: the next start-up closes it as interrupted.
            logger.critical(
                "cannot end session \(sessionId) in the store: \(error)", metadata: ["footstep.session": "\(sessionId)"])
        }
        logger.info(
            "session \(sessionId) completed: \(sink.storedEvents) events, \(worker.capturedFrames) frames",
            metadata: ["message_id": "\(MessageID.sessionEnded)", "footstep.session": "\(sessionId)"])
        update {
            $0.sessionId = nil
            $0.sessionTitle = nil
            $0.sessionStartedAt = nil
            $0.level = nil
            $0.handle(.sessionEnded)
        }
        if let failure = sink.failure, !stopRequested { throw DaemonError(failure) }
        return !stopRequested
    }
}

/// journald MESSAGE_IDs of lifecycle entries (`journalctl MESSAGE_ID=…`).
enum MessageID {
    static let sessionStarted = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f801"
    static let sessionEnded = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f802"
    static let deviceLost = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f803"
    static let deviceRestored = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f804"
    static let fileRepaired = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f805"
    static let stopped = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f806"
}

extension DaemonConfiguration {
    /// The pipeline settings from this configuration.
    public var analysisConfiguration: AnalysisConfiguration {
        var analysis = AnalysisConfiguration()
        analysis.levelIntervalSeconds = levels.interval
        analysis.calibrationOffsetDB = levels.calibrationOffset
        analysis.detectorThreshold = detection.threshold
        analysis.minimumInterOnsetInterval = detection.minimumInterOnsetInterval
        analysis.gaitContext = detection.gaitContext
        analysis.equalizer = equalizer
        return analysis
    }
}
