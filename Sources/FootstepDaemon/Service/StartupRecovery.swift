import FootstepAnalysis
import FootstepAudio
import FootstepClassifier
import FootstepCore
import FootstepStore
import Foundation
import Logging

/// What start-up does after a crash, kill or power cut:
/// 1. registers audio files of open sessions that the store never heard of
///    (killed between creating a file and registering it);
/// 2. repairs or finalises the audio files the store still has open (WAV
///    header lengths, FLAC re-encoded to a finalised file) and closes them
///    with their SHA-256;
/// 3. with a ``TailRecovery``, analyses the end of each open session's last
///    audio file, stores the events after its last stored one, settles the
///    labels the kill left pending and measures the level intervals it caught
///    (it lost them in memory; their audio was on disk), then with a
///    ``BoutRecovery`` stores the gait bouts it left open;
/// 4. ends every session left `recording`/`paused` as `interrupted` at the end
///    of its last written data (taking the repaired files' true ends into account);
///    where its events or level intervals reach past its audio, records that
///    stretch as a gap without audio (``lostAudioReason``): the analysis had
///    the audio, the disk did not (the encoder's last block at a kill, up to
///    the sync interval at a power cut), and reports say so;
/// 5. gives the interrupted sessions' events their clips: a clip file written
///    but not recorded is recorded, a missing one is cut from the rolling files.
public struct StartupRecovery {
    public struct Report: Sendable, Equatable {
        /// Files repaired or found complete, with the frames they hold.
        public var files: [AudioFileRepair.Result] = []
        /// Files found on disk but not in the store, now registered.
        public var registeredFiles: [String] = []
        /// Sessions closed as interrupted.
        public var interruptedSessions: [Int64] = []
        /// Clips recorded or cut for events of interrupted sessions.
        public var recoveredClips = 0
        /// Events found in the audio after each interrupted session's last stored event, by session.
        public var recoveredEvents: [Int64: Int] = [:]
        /// Stored events whose pending settlement or bout revision was made at start-up, by session.
        public var settledLabels: [Int64: Int] = [:]
        /// Level intervals measured again from the audio the interruption left, by session.
        public var recoveredLevels: [Int64: Int] = [:]
        /// Gait bouts the interruption left open, stored at start-up, by session.
        public var recoveredBouts: [Int64: Int] = [:]
        /// Seconds at the end of each interrupted session that its stored data
        /// reach and its audio does not, recorded as a gap; by session.
        public var lostAudio: [Int64: Double] = [:]
    }

    let database: FootstepDatabase
    let audioDirectory: String
    let clipDirectory: String?
    let clipBefore: Double
    let clipAfter: Double
    let tail: TailRecovery?
    let logger: Logger

    /// - Parameters:
    ///   - analysis, model: The pipeline that analyses the
    ///     interrupted sessions' audio tails; `model` is called only when a
    ///     session was left open. Without it, tails are not analysed.
    ///   - storeInterval: Seconds between the daemon's store writes
    ///     (`DaemonOptions.flushInterval`), the most a settlement waited for the store.
    public init(
        database: FootstepDatabase, audioDirectory: String, clipDirectory: String? = nil, clipBefore: Double = 2,
        clipAfter: Double = 3, analysis: AnalysisConfiguration = AnalysisConfiguration(), model: (() throws -> FootstepModel)? = nil,
        storeInterval: Double = 1, logger: Logger
    ) {
        self.database = database
        self.audioDirectory = audioDirectory
        self.clipDirectory = clipDirectory
        self.clipBefore = clipBefore
        self.clipAfter = clipAfter
        self.tail = model.map {
            TailRecovery(database: database, analysis: analysis, model: $0, storeInterval: storeInterval, logger: logger)
        }
        self.logger = logger
    }

    @discardableResult
    public func run() throws -> Report {
        var report = Report()
        removeLeftovers()
        report.registeredFiles = try registerOrphans()
        var ends: [Int64: Date] = [:]
        for file in try database.unclosedAudioFiles() {
            guard FileManager.default.fileExists(atPath: file.path) else {
                logger.warning("unfinished audio file \(file.path) is missing; left open in the store")
                continue
            }
            do {
                let result = try AudioFileRepair.repair(
                    path: file.path, fallbackFormat: AudioFormat(sampleRate: file.sampleRate, channels: file.channels))
                let checksum = try FileChecksum.sha256(ofFileAt: file.path)
                try database.closeAudioFile(file.id!, sha256: checksum, frames: result.frames, bytes: result.bytes)
                let end = file.startedAt.addingTimeInterval(Double(result.frames) / Double(file.sampleRate))
                if ends[file.sessionId].map({ end > $0 }) ?? true { ends[file.sessionId] = end }
                report.files.append(result)
                logger.notice(
                    "repaired unfinished audio file \(file.path): \(result.action.rawValue), \(result.frames) frames recovered",
                    metadata: ["message_id": "\(MessageID.fileRepaired)", "footstep.session": "\(file.sessionId)"])
            } catch {
                logger.error("cannot repair audio file \(file.path): \(error)")
            }
        }
        if let tail {
            for summary in try database.sessions() where summary.session.status.isOpen {
                let id = summary.session.id!
                do {
                    let recovered = try tail.recover(session: id)
                    report.recoveredEvents[id] = recovered.events
                    report.settledLabels[id] = recovered.labels
                    report.recoveredLevels[id] = recovered.levels
                } catch {
                    logger.error("session \(id): the audio after its last stored event could not be analysed: \(error)")
                }
            }
        }
        let bouts = BoutRecovery(database: database, logger: logger)
        for summary in try database.sessions() where summary.session.status.isOpen {
            let id = summary.session.id!
            do {
                report.recoveredBouts[id] = try bouts.recover(session: id, sampleRate: summary.session.sampleRate)
            } catch {
                logger.error("session \(id): the gait bouts left open could not be stored: \(error)")
            }
        }
        report.interruptedSessions = try database.closeInterruptedSessions { ends[$0.id!] }
        for id in report.interruptedSessions {
            logger.notice("session \(id) was interrupted (crash or power loss); closed", metadata: ["footstep.session": "\(id)"])
            do {
                if let seconds = try recordLostAudio(session: id) { report.lostAudio[id] = seconds }
            } catch {
                logger.error("session \(id): the audio the interruption lost could not be recorded as a gap: \(error)")
            }
        }
        if let clipDirectory, !report.interruptedSessions.isEmpty {
            report.recoveredClips = recoverClips(sessions: report.interruptedSessions, clipDirectory: clipDirectory)
        }
        return report
    }

    /// The reason of the gap an interruption leaves where the stored data outran the audio on disk.
    public static let lostAudioReason =
        "interrupted: analysed, but its audio was not on disk when the daemon stopped"

    /// Records as a gap the end of an interrupted session that its events or
    /// level intervals cover and its audio files do not (from the later of the
    /// audio's end and the session's last gap, to the session's end); returns
    /// its seconds, or nil when the audio reaches the end (within 10 ms).
    private func recordLostAudio(session id: Int64) throws -> Double? {
        guard let session = try database.session(id)?.session, let end = session.endedAt else { return nil }
        let audioEnd = try database.audioFiles(session: id).map(\.endsAt).max() ?? session.startedAt
        let start = try ([audioEnd] + database.gaps(session: id).map(\.endedAt)).max()!
        let seconds = end.timeIntervalSince(start)
        guard seconds > 0.01 else { return nil }
        try database.addGap(sessionId: id, from: start, to: end, reason: Self.lostAudioReason)
        // Events reaching into it: no event lasts a minute.
        let minuteBefore = Int64(max(0, start.timeIntervalSince(session.startedAt) - 60) * Double(session.sampleRate))
        let events = try database.events(session: id, fromFrame: minuteBefore).filter {
            $0.timestamp.addingTimeInterval($0.measurements.duration) > start
        }.count
        logger.warning(
            "session \(id): its last \(String(format: "%.2f", seconds)) s were analysed but their audio had not reached the disk (\(events) events reach into them); recorded as a gap without audio",
            metadata: ["footstep.session": "\(id)"])
        return seconds
    }

    /// Temporary files of a repair that was itself interrupted.
    private func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: audioDirectory) else { return }
        for name in names where name.hasSuffix(".repair") {
            try? FileManager.default.removeItem(atPath: "\(audioDirectory)/\(name)")
        }
    }

    /// Files named `…-s<session>[-n].wav|flac` of a session still open in the store
    /// but absent from it: registered after the session's last known file.
    private func registerOrphans() throws -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: audioDirectory) else { return [] }
        var registered: [String] = []
        for name in names.sorted() {
            let path = "\(audioDirectory)/\(name)"
            guard let container = AudioFileContainer(pathExtension: path), let sessionId = Self.sessionId(fromFileName: name)
            else { continue }
            guard let summary = try database.session(sessionId), summary.session.status.isOpen else { continue }
            let files = try database.audioFiles(session: sessionId)
            guard !files.contains(where: { $0.path == path }) else { continue }
            let session = summary.session
            let last = files.last
            let startFrame = last.map { $0.startFrame + $0.frames } ?? 0
            let startedAt = last?.endsAt ?? session.startedAt
            _ = try database.addAudioFile(
                sessionId: sessionId, path: path, startedAt: startedAt, startFrame: startFrame,
                sampleRate: session.sampleRate, channels: session.channels, format: container)
            registered.append(path)
            logger.notice(
                "registered audio file \(path) found on disk but not in the store", metadata: ["footstep.session": "\(sessionId)"])
        }
        return registered
    }

    /// The session id in a rolling file name (`20250101T000000Z-s12.flac`, `…-s12-1.wav`).
    static func sessionId(fromFileName name: String) -> Int64? {
        let stem = name.split(separator: ".").first.map(String.init) ?? name
        let parts = stem.split(separator: "-")
        guard parts.count >= 2, parts[1].hasPrefix("s") else { return nil }
        return Int64(parts[1].dropFirst())
    }

    /// Records clip files the capture thread wrote but the store never heard of,
    /// and cuts the missing ones from the rolling files.
    private func recoverClips(sessions: [Int64], clipDirectory: String) -> Int {
        var onDisk: [String: String] = [:]  // "s<session>-f<frame>" → path
        if let walker = FileManager.default.enumerator(atPath: clipDirectory) {
            while let relative = walker.nextObject() as? String {
                let name = (relative as NSString).lastPathComponent
                guard let range = name.range(of: "-s"), let dot = name.lastIndex(of: ".") else { continue }
                onDisk[String(name[name.index(after: range.lowerBound)..<dot])] = "\(clipDirectory)/\(relative)"
            }
        }
        var recovered = 0
        for sessionId in sessions {
            guard let events = try? database.eventsWithoutClip(session: sessionId), !events.isEmpty,
                let summary = try? database.session(sessionId)
            else { continue }
            let files = (try? database.audioFiles(session: sessionId)) ?? []
            let sources = files.filter { $0.prunedAt == nil }.map {
                ClipExtractor.Source(path: $0.path, startFrame: $0.startFrame, frames: $0.frames)
            }
            let session = summary.session
            let container = files.first?.format ?? .flac
            let format = AudioFormat(sampleRate: session.sampleRate, channels: session.channels)
            for event in events {
                var path = onDisk["s\(sessionId)-f\(event.frameOffset)"]
                if path == nil {
                    let candidate = EventClipRecorder.path(
                        directory: clipDirectory, onsetTime: event.timestamp, sessionId: sessionId,
                        onsetFrame: event.frameOffset, container: container)
                    let rate = Double(session.sampleRate)
                    let start = max(0, event.frameOffset - Int64((clipBefore * rate).rounded()))
                    let end = event.frameOffset + Int64((clipAfter * rate).rounded())
                    if (try? ClipExtractor.extract(
                        from: sources, startFrame: start, endFrame: end, format: format, container: container, to: candidate))
                        != nil
                    {
                        path = candidate
                    }
                }
                guard let path, let checksum = try? FileChecksum.sha256(ofFileAt: path),
                    (try? database.setEventClip(event.id!, path: path, sha256: checksum)) != nil
                else { continue }
                recovered += 1
            }
            if recovered > 0 {
                logger.notice("recovered \(recovered) event clips of interrupted session \(sessionId)", metadata: ["footstep.session": "\(sessionId)"])
            }
        }
        return recovered
    }
}
