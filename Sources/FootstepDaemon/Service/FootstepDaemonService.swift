import FootstepAPI
import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepConfiguration
import FootstepCore
import FootstepMQTT
import FootstepStore
import FootstepWire
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
/// store are up and the control socket listens. Capture runs on its own thread
/// (`CaptureWorker`). The service task sleeps until something happens
/// (`ServiceWakeup`): the capture thread posted reports, a command arrived
/// (``send(_:within:)``), or a timer is due (level flush, watchdog, status,
/// housekeeping). It stores events at once (then publishes them on
/// `liveEvents`) and levels in batches (at most `flushInterval` late),
/// publishes the live meter on `liveLevels`, pings the watchdog only while the
/// capture thread turns (or while idle on purpose), watches free space and
/// applies retention (`Housekeeping`), and ends the session as `completed` on
/// stop, at the end of a schedule window or on shutdown. A finite source
/// (file, scenario) ends the run at its end. The service task is the only
/// writer of sessions, events, levels and files to the store.
public final class FootstepDaemonService: Service, Sendable {
    /// What other tasks read and the service task updates.
    struct Control {
        var configuration: DaemonConfiguration
        var status = DaemonStatus()
        var database: FootstepDatabase?
        /// The latest `footstepctl calibrate` result; it wins over `levels.calibration_offset`.
        var storedCalibrationOffset: Double?
        /// Whether READY=1 waits for the control socket, and what became of it.
        var controlSocket = ControlSocketReadiness.notServed
        var mailbox = CommandMailbox()
        /// The MQTT publisher while `[mqtt]` is on, its task, and the activity it was last told.
        var mqtt: OutboxPublisher?
        var mqttTask: Task<Void, Never>?
        var mqttActivity: SensorActivity?
        /// The latest switch of publisher after a reload changed `[mqtt]` (``switchMQTT(to:)``).
        var mqttSwitch: Task<Void, Never>?
    }

    /// The control socket as READY=1 sees it.
    enum ControlSocketReadiness: Equatable {
        /// The daemon runs without one.
        case notServed
        /// It is starting; READY=1 waits for it (at most 5 s).
        case starting
        case listening
        /// It could not start; the daemon records without it.
        case failed
    }

    public let source: SourceChoice
    public let options: DaemonOptions
    let logger: Logger
    let notifier: SystemdNotifier
    let control: Mutex<Control>
    /// Wakes the service task: capture reports, commands, the control socket.
    let wakeup = ServiceWakeup()
    private let shuttingDown = Atomic<Bool>(false)
    private let leftAside = Atomic<Int>(0)
    /// Records the store refused that a stop kept in the pending journal (stored at the next start): footstepd
    /// exits non-zero when there are any.
    public var recordsLeftAside: Int { leftAside.load(ordering: .acquiring) }

    func noteLeftAside(_ count: Int) { leftAside.add(count, ordering: .acquiringAndReleasing) }
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
    public var status: DaemonStatus {
        control.withLock { control in
            var status = control.status
            status.mqtt = control.mqtt?.health
            status.mqttBroker = control.mqtt?.client.options.broker.description
            return status
        }
    }
    /// The noise rules checked as events and level minutes are stored (each exceedance is published
    /// over MQTT): the standard rules, with the configuration's quiet hours as their night.
    var ruleWatch: RuleWatch { RuleWatch(quietHours: configuration.reports.quietHours) }

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

    /// Replaces the configuration (already validated); capture settings apply
    /// from the next session, a changed `[mqtt]` at once (``switchMQTT(to:)``).
    public func reload(_ configuration: DaemonConfiguration) {
        let applied = configuration.applying(options)
        let mqttChanged = control.withLock { control -> Bool in
            defer { control.configuration = applied }
            return control.configuration.mqtt != applied.mqtt
        }
        if mqttChanged { switchMQTT(to: applied) }
        wakeup.signal()
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

    /// Makes `READY=1` wait (at most 5 s) for ``controlSocketStarted(listening:)``.
    /// Call before `run()`.
    public func expectControlSocket() {
        control.withLock { $0.controlSocket = .starting }
    }

    /// The control socket listens (true) or could not start (false).
    public func controlSocketStarted(listening: Bool) {
        control.withLock { $0.controlSocket = listening ? .listening : .failed }
        wakeup.signal()
    }

    /// Waits until the control socket listens or fails, at most 5 s (a daemon
    /// whose socket cannot start still records, and says so in the journal).
    private func waitForControlSocket() async {
        let deadline = ContinuousClock.now + .seconds(5)
        while control.withLock({ $0.controlSocket == .starting }) {
            guard ContinuousClock.now < deadline, !isShuttingDown else {
                logger.warning("the control socket is not listening; sending READY=1 anyway")
                return
            }
            await wakeup.wait(until: deadline)
        }
    }

    /// Sends `READY=1` the first time it is called (once the control socket is up).
    func announceReady(_ readySent: inout Bool) async {
        guard !readySent else {
            notifier.status(status.line)
            return
        }
        await waitForControlSocket()
        notifier.ready(status: status.line)
        readySent = true
    }

    /// The one way the status changes (MQTT's state follows it).
    func update(_ body: (inout DaemonStatus) -> Void) {
        let changed = control.withLock { control -> (OutboxPublisher, SensorActivity)? in
            body(&control.status)
            guard let publisher = control.mqtt else { return nil }
            let activity = SensorActivity(control.status)
            guard activity != control.mqttActivity else { return nil }
            control.mqttActivity = activity
            return (publisher, activity)
        }
        if let (publisher, activity) = changed { publisher.activityChanged(activity) }
    }

    // MARK: Run

    public func run() async throws {
        let configuration = self.configuration
        // One footstepd per state directory, before start-up recovery touches the store.
        let served = control.withLock { $0.controlSocket != .notServed }
        let lock = try StateDirectoryLock(
            stateDirectory: configuration.stateDirectory, socket: served ? configuration.socket.path : nil)
        defer { lock.release() }
        let database = try openStore(configuration)
        let storedCalibration = try? database.latestMeasuredCalibration()
        // The interrupted session measured with the calibration in force now (a new one starts a new session).
        var recoveryConfiguration = configuration
        if let storedCalibration { recoveryConfiguration.levels.calibrationOffset = storedCalibration.offsetDB }
        // What a stop could not store (the store refused it) goes in first, before start-up recovery: a session
        // whose end the store refused is recovered as interrupted, and the analysis of its audio's tail must find
        // those events stored, or it would store them a second time.
        let journal = PendingJournal(directory: configuration.stateDirectory)
        try PendingReplay(journal: journal, database: database.checkingRules(ruleWatch), logger: logger).run()
        try StartupRecovery(
            database: database.checkingRules(ruleWatch), audioDirectory: configuration.audioDirectory, clipDirectory: configuration.clipDirectory,
            clipBefore: configuration.recording.clipBefore, clipAfter: configuration.recording.clipAfter,
            analysis: recoveryConfiguration.analysisConfiguration, model: { try self.loadModel(configuration) },
            storeInterval: options.flushInterval, logger: logger
        ).run()
        // Then the disk's reserve for next time.
        if !journal.holdReserve() {
            logger.warning("cannot hold \(PendingJournal.reserveBytes >> 20) MB back in \(journal.reservePath): a full disk at a stop may lose what the store refuses")
        }
        // The publisher first, with the configuration in force now: a reload from here on switches it.
        startMQTT(self.configuration, database: database)
        control.withLock {
            $0.database = database
            $0.storedCalibrationOffset = storedCalibration?.offsetDB
        }
        if let storedCalibration {
            logger.info("levels calibrated: offset \(storedCalibration.offsetDB) dB, measured \(storedCalibration.measuredAt)")
        }
        var housekeeping = Housekeeping(configuration: configuration, database: database, options: options, logger: logger)
        var readySent = false
        var callers = WaitingCallers()
        var lastIdleWatchdog = ContinuousClock.now
        defer { closeMailbox() }
        try await withGracefulShutdownHandler {
            while !isShuttingDown {
                housekeeping.tick(configuration: self.configuration, status: update)
                runWrites(database)
                handleBetweenSessions(takeCommands(), callers: &callers, scheduleOpen: housekeeping.scheduleActive)
                guard machine.wantsSession(scheduleOpen: housekeeping.scheduleActive) else {
                    update { $0.handle(.waiting); $0.sessionId = nil }
                    // Up and waiting (stopped, or outside the schedule's windows).
                    if !readySent { await announceReady(&readySent) }
                    // Idle on purpose: no frames are expected, the daemon is healthy.
                    var next = ContinuousClock.now + housekeepingPeriod
                    if let interval = notifier.watchdogInterval {
                        if ContinuousClock.now - lastIdleWatchdog >= interval / 2 {
                            notifier.watchdog()
                            lastIdleWatchdog = .now
                        }
                        next = min(next, lastIdleWatchdog + interval / 2)
                    }
                    await wakeup.wait(until: next)
                    continue
                }
                let ended = try await runSession(
                    database: database, callers: &callers, readySent: &readySent, housekeeping: &housekeeping)
                if ended && (source.isFinite || options.maximumFrames != nil) { break }
            }
        } onGracefulShutdown: {
            self.shuttingDown.store(true, ordering: .releasing)
            self.wakeup.signal()
        }
        update { $0.handle(.shutdownRequested) }
        // What the last session stored, then `offline`.
        await stopMQTT()
        liveLevels.finishAll()
        liveEvents.finishAll()
        notifier.stopping(status: "stopping")
        logger.info("footstepd stopped", metadata: ["message_id": "\(MessageID.stopped)"])
    }

    /// How often the schedule, free space and retention are looked at (`Housekeeping` keeps its own intervals).
    var housekeepingPeriod: Duration { .milliseconds(Int64(min(250, options.diskCheckInterval * 1000))) }

    var isShuttingDown: Bool { shuttingDown.load(ordering: .acquiring) || Task.isCancelled }
}
