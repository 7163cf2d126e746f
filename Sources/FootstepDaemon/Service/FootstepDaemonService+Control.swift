import FootstepAPI
import FootstepAudio
import FootstepConfiguration
import FootstepCore
import FootstepStore
import FootstepWire
import Foundation
import Logging

/// The daemon as the control socket sees it: maps `DaemonStatus` and
/// `DaemonConfiguration` to the wire types and turns requests into the
/// daemon's control methods.
public struct DaemonControlBackend: ControlBackend {
    public let daemon: FootstepDaemonService
    let logger: Logger
    /// How long a recording action may take to show in the daemon's state.
    var actionTimeout: Double = 5

    public init(daemon: FootstepDaemonService, logger: Logger) {
        self.daemon = daemon
        self.logger = logger
    }

    public var database: FootstepDatabase? { daemon.database }
    public var liveLevels: LiveBroadcast<LiveLevelReading> { daemon.liveLevels }
    public var liveEvents: LiveBroadcast<EventRecord> { daemon.liveEvents }

    public func status() throws -> StatusResponse { StatusResponse(daemon.status) }

    public func recordingTime() -> Date? {
        let status = daemon.status
        return status.state == .recording ? status.level?.time : nil
    }

    public func configuration() -> ConfigurationResponse {
        ConfigurationResponse(daemon.configuration, path: daemon.options.configurationPath)
    }

    // MARK: Recording control

    public func perform(_ action: RecordingAction) async throws -> ActionResponse {
        let command: DaemonCommand
        switch action {
        case .start: command = .start
        case .pause: command = .pause
        case .resume: command = .resume
        case .stop: command = .stop
        }
        let message: String
        switch await daemon.send(command, within: .seconds(actionTimeout)) {
        case let .started(session): message = "session \(session) started"
        case let .waitingForSchedule(schedule): message = "recording starts when the monitoring schedule opens (\(schedule))"
        case let .waitingForDevice(reason): message = "the capture device cannot be opened (\(reason)); recording starts when it returns"
        case let .stopped(session): message = session.map { "session \($0) stopped" } ?? "stopped waiting for the capture device"
        case let .paused(session): message = "session \(session) paused"
        case let .resumed(session): message = "session \(session) resumed"
        case let .calibrated(session): message = "calibration applied" + (session.map { " (session \($0))" } ?? "")
        case let .refused(reason): throw APIError.conflict(reason)
        case .timedOut:
            throw APIError.unavailable(
                "timeout", "the daemon did not \(action.rawValue) within \(Int(actionTimeout)) s; see `footstepctl status`")
        case .shuttingDown: throw APIError.unavailable("shutting_down", "footstepd is shutting down")
        }
        let status = daemon.status
        return ActionResponse(action: action.rawValue, state: status.state.rawValue, sessionId: status.sessionId, message: message)
    }

    // MARK: Writes

    public func write<Result: Sendable>(
        _ body: @escaping @Sendable (FootstepDatabase) throws -> Result
    ) async throws -> Result {
        guard database != nil else {
            throw APIError.unavailable("starting", "the daemon is starting: the evidence store is not open yet; retry in a moment")
        }
        do {
            return try await daemon.write(body)
        } catch let error as DaemonError {
            throw APIError.unavailable("shutting_down", error.message)
        }
    }

    public func deleteSession(_ id: Int64, reason: String) async throws -> SessionDeletion {
        let deletion = try await write { try $0.deleteSession(id, reason: reason) }
        daemon.recountToday()
        return deletion
    }

    public func review(_ target: ReviewTarget, _ action: ReviewAction, by reviewer: Reviewer, reason: String)
        async throws -> ReviewOutcome
    {
        let outcome = try await write { try $0.review(target, action, by: reviewer, reason: reason) }
        if !outcome.reviews.isEmpty { daemon.recountToday() }
        return outcome
    }

    // MARK: Configuration and calibration

    public func reloadConfiguration() async throws -> ActionResponse {
        guard let path = daemon.options.configurationPath else {
            throw APIError.conflict("footstepd runs on built-in defaults (no --config file): there is nothing to reload")
        }
        do {
            try daemon.reload(from: path)
        } catch {
            logger.error("configuration not reloaded, keeping the old one: \(error)")
            throw APIError(.unprocessableContent, code: "invalid_configuration", error.description)
        }
        logger.notice("configuration reloaded from \(path)")
        let status = daemon.status
        return ActionResponse(
            action: "reload", state: status.state.rawValue, sessionId: status.sessionId,
            message: "configuration reloaded from \(path); capture settings apply from the next session")
    }

    /// Applies the stored calibration and waits (up to 5 s) for the new
    /// session that measures with it, so the next reading is calibrated.
    public func applyCalibration(offsetDB: Double) async throws {
        if case .timedOut = await daemon.send(.calibrate(offsetDB: offsetDB)) {
            logger.warning("calibration stored; the session measuring with it had not started within 5 s")
        }
    }

    // MARK: Clips

    public func clip(for event: EventRecord) async throws -> ClipFile? {
        let name = "event-\(event.id ?? 0)"
        if let stored = event.clipPath, let path = database?.resolve(stored), let data = FileManager.default.contents(atPath: path) {
            let container = AudioFileContainer(pathExtension: path) ?? .wav
            return ClipFile(data: data, contentType: container.mimeType, fileName: "\(name).\(container.fileExtension)")
        }
        return try cutClip(for: event, name: name)
    }

    /// Cuts the clip from the session's rolling files that still exist.
    private func cutClip(for event: EventRecord, name: String) throws -> ClipFile? {
        guard let database else { return nil }
        let files = try database.audioFiles(session: event.sessionId)
            .filter { $0.prunedAt == nil && FileManager.default.fileExists(atPath: $0.path) }
        guard let first = files.first else { return nil }
        let recording = daemon.configuration.recording
        let frames = ClipExtractor.eventFrames(
            onsetFrame: event.frameOffset, duration: event.duration, before: recording.clipBefore,
            after: recording.clipAfter, sampleRate: first.sampleRate)
        let output = NSTemporaryDirectory() + "/footstepd-clip-\(UUID().uuidString).\(first.format.fileExtension)"
        defer { try? FileManager.default.removeItem(atPath: output) }
        do {
            try ClipExtractor.extract(
                from: files.map { ClipExtractor.Source(path: $0.path, startFrame: $0.startFrame, frames: $0.frames) },
                startFrame: frames.lowerBound, endFrame: frames.upperBound,
                format: AudioFormat(sampleRate: first.sampleRate, channels: first.channels), container: first.format,
                to: output)
        } catch {
            logger.info("no clip for event \(event.id ?? 0): \(error)")
            return nil
        }
        guard let data = FileManager.default.contents(atPath: output) else { return nil }
        return ClipFile(data: data, contentType: first.format.mimeType, fileName: "\(name).\(first.format.fileExtension)")
    }
}

extension AudioFileContainer {
    /// The media type served for clips.
    var mimeType: String { self == .flac ? "audio/flac" : "audio/wav" }
}

extension StatusResponse {
    /// The wire form of the daemon's status.
    init(_ status: DaemonStatus, now: Date = Date()) {
        let session = status.sessionId.map { id in
            let started = status.sessionStartedAt ?? now
            return Session(
                id: id, title: status.sessionTitle ?? "", startedAt: started,
                durationSeconds: max(0, now.timeIntervalSince(started)))
        }
        let device = status.source.map {
            Device(name: $0, sampleRate: status.sampleRate, channels: status.channels, format: status.sampleFormat)
        }
        let level = status.level.map {
            Level(laeqDB: $0.laeqDB, lafDB: $0.lafDB, band: $0.band, calibrated: $0.calibrated, time: $0.time)
        }
        self.init(
            state: status.state.rawValue, version: status.version, uptimeSeconds: status.uptime, session: session,
            device: device, level: level, eventsToday: status.eventsToday, lastEvent: status.lastEvent.map(EventResponse.init),
            capture: Capture(
                capturedFrames: status.capturedFrames, overruns: status.droppedPeriods, xruns: status.xruns,
                deviceUp: status.state == .recording || status.state == .paused, invalidSamples: status.invalidSamples),
            storage: Storage(diskFreeBytes: status.diskFreeBytes, audioBytes: status.audioBytes, audioWriting: status.audioWriting),
            schedule: Schedule(
                description: status.schedule.description, active: status.schedule.isActive,
                nextChange: status.schedule.nextChange),
            lastError: status.lastError,
            mqtt: status.mqtt.map { health in
                MQTT(
                    broker: status.mqttBroker ?? "", connected: health.connected, problem: health.problem,
                    outboxDepth: health.outboxDepth, oldestQueuedAt: health.oldestQueuedAt, dropped: health.dropped,
                    published: health.published)
            })
    }
}

extension ConfigurationResponse {
    /// The wire form of the configuration in force.
    public init(_ configuration: DaemonConfiguration, path: String?) {
        self.init(path: path, settings: configuration.values, toml: configuration.renderedTOML)
    }
}

extension ControlServerConfiguration {
    /// The control server's settings from the daemon's configuration.
    public init(_ configuration: DaemonConfiguration) {
        self.init(
            socketPath: configuration.socket.path, readGroup: configuration.socket.readGroup,
            adminGroup: configuration.socket.adminGroup, metricsPort: configuration.metrics.port,
            metricsAddress: configuration.metrics.address, version: FootstepVersion.current)
    }
}
