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
        _ configuration: DaemonConfiguration, database: FootstepDatabase, callers: inout WaitingCallers,
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
            for (ticket, command) in callers.awaitingStart where command == .start {
                reply(ticket, .waitingForDevice(reason))
            }
            callers.awaitingStart.removeAll { $0.command == .start }
            let retryAt = ContinuousClock.now + .seconds(delay)
            while ContinuousClock.now < retryAt, !isShuttingDown {
                await wakeup.wait(until: retryAt)
                runWrites(database)
                handleBetweenSessions(takeCommands(), callers: &callers, scheduleOpen: true, deviceError: reason)
                if !machine.wantsSession { return .abandoned }
            }
            delay = min(delay * 2, 4)
        }
        return .abandoned
    }

    /// One session from start to stop: opens the source, creates the session in the store and starts
    /// its capture thread, then ``SessionRun`` runs it to its end. Returns true when the source ended.
    func runSession(
        database: FootstepDatabase, callers: inout WaitingCallers, readySent: inout Bool, housekeeping: inout Housekeeping
    ) async throws -> Bool {
        let model = try loadModel(self.configuration)
        guard
            case let .opened(audio) = try await openSource(
                self.configuration, database: database, callers: &callers, readySent: &readySent)
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
        if machine.wantsPause { setPaused(true, worker: worker, session: sessionId, database: database) }
        worker.start()
        logger.info(
            "session \(sessionId) started from \(audio.name) (\(format))",
            metadata: ["message_id": "\(MessageID.sessionStarted)", "footstep.session": "\(sessionId)"])
        for (ticket, command) in callers.awaitingStart {
            reply(ticket, command == .start ? .started(session: sessionId) : .calibrated(session: sessionId))
        }
        callers.awaitingStart.removeAll()
        await announceReady(&readySent)

        var run = SessionRun(
            service: self, database: database, sessionId: sessionId, anchor: anchor, format: format, worker: worker,
            configuration: configuration)
        await run.run(callers: &callers, housekeeping: &housekeeping)
        return try run.finish(callers: &callers, housekeeping: &housekeeping)
    }

    /// Pauses or resumes the capture thread, the session's row and the state.
    func setPaused(_ paused: Bool, worker: CaptureWorker, session: Int64, database: FootstepDatabase) {
        worker.setPaused(paused)
        try? database.setSessionStatus(session, paused ? .paused : .recording)
        update { $0.handle(paused ? .paused : .resumed) }
        logger.info("session \(session) \(paused ? "paused" : "resumed")", metadata: ["footstep.session": "\(session)"])
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
