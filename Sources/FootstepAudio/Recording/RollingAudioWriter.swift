import FootstepCore
import Foundation

/// Writes a session's audio as a series of files: a new file when the session
/// starts (or resumes) and at every wall-clock-aligned roll boundary (every
/// `rollInterval` seconds since midnight UTC, e.g. 00:00, 04:00, … for 4 h),
/// named `<UTC yyyyMMdd'T'HHmmss'Z'>-s<session>.<ext>` in `directory`.
///
/// Times come from the session's sample clock: the wall-clock `anchor` of frame
/// `anchorFrame` plus frames / sample rate, so a roll falls on the exact frame
/// of the boundary whatever the block size. The file is flushed to disk
/// (`fsync`) at least every `syncInterval` seconds of wall-clock time; WAV
/// headers are rewritten after every write (libsndfile's automatic header
/// update), so a crash loses at most the last sync interval.
///
/// - Note: Not thread-safe: call from one thread (the pipeline's).
public final class RollingAudioWriter {
    /// A file that was just opened.
    public struct OpenedFile: Sendable, Equatable {
        public var path: String
        /// Session frame of the file's first frame.
        public var startFrame: Int64
        /// Wall-clock time of the first frame.
        public var startedAt: Date
        /// When the clock was re-anchored to the wall clock at this roll: wall clock
        /// minus sample clock at the first frame, seconds (positive: the stream ran slow).
        public var clockDrift: Double?
    }

    /// A file that was closed and finalised.
    public struct ClosedFile: Sendable, Equatable {
        public var path: String
        public var startFrame: Int64
        public var startedAt: Date
        public var frames: Int64
        /// Size on disk after closing.
        public var bytes: Int64
    }

    public let directory: String
    public let container: AudioFileContainer
    /// How the files store samples.
    public let encoding: AudioSampleEncoding
    public let format: AudioFormat
    public let sessionId: Int64
    /// Seconds between rolls; files start on multiples of it (UTC).
    public let rollInterval: Double
    /// Seconds between fsyncs of the open file.
    public let syncInterval: Double

    /// Called when a file is opened (from the thread that calls `write`).
    public var onOpen: (OpenedFile) -> Void = { _ in }
    /// Called when a file is closed (from the thread that calls `write`/`close`).
    public var onClose: (ClosedFile) -> Void = { _ in }

    /// Session frames written so far (the session clock).
    public private(set) var sessionFrame: Int64
    private var anchor: Date
    private var anchorFrame: Int64
    /// Earlier anchors (frame, time), newest last, so a frame before the latest
    /// re-anchoring (an event reported just after a roll) keeps the time of its own stretch.
    private var earlierAnchors: [(frame: Int64, date: Date)] = []
    private static let keptAnchors = 8
    private var current: (writer: AudioFileWriter, opened: OpenedFile, rollFrame: Int64, boundary: Double)?
    private var lastSync = ContinuousClock.now
    /// The wall-clock boundary that closed the last file, and the wall clock of a
    /// session frame of the block being written (for re-anchoring at that roll).
    private var rolledAt: Double?
    /// Start time of the last file opened: a re-anchored start never goes before it.
    private var lastFileStart: Date?
    private var wallClockReference: (frame: Int64, time: Date)?

    /// - Parameters:
    ///   - anchor: Wall-clock time of session frame `startFrame`.
    public init(
        directory: String, container: AudioFileContainer, encoding: AudioSampleEncoding = .pcm16, format: AudioFormat,
        sessionId: Int64,
        anchor: Date, startFrame: Int64 = 0, rollInterval: Double = 4 * 3600, syncInterval: Double = 1
    ) throws(AudioFileWriterError) {
        precondition(rollInterval > 0 && syncInterval > 0)
        self.directory = directory
        self.container = container
        self.encoding = encoding
        self.format = format
        self.sessionId = sessionId
        self.rollInterval = rollInterval
        self.syncInterval = syncInterval
        self.anchor = anchor
        self.anchorFrame = startFrame
        earlierAnchors.reserveCapacity(Self.keptAnchors)
        self.sessionFrame = startFrame
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw AudioFileWriterError(path: directory, reason: "cannot create the directory: \(error.localizedDescription)")
        }
    }

    deinit { try? close() }

    /// The path of the file being written, if any.
    public var currentPath: String? { current?.opened.path }

    /// Wall-clock time of a session frame.
    public func time(ofFrame frame: Int64) -> Date {
        if frame < anchorFrame, let earlier = earlierAnchors.last(where: { $0.frame <= frame }) {
            return earlier.date.addingTimeInterval(Double(frame - earlier.frame) / Double(format.sampleRate))
        }
        return anchor.addingTimeInterval(Double(frame - anchorFrame) / Double(format.sampleRate))
    }

    private func moveAnchor(to date: Date) {
        if earlierAnchors.count == Self.keptAnchors { earlierAnchors.removeFirst() }
        earlierAnchors.append((anchorFrame, anchor))
        anchor = date
        anchorFrame = sessionFrame
    }

    /// Re-anchors the session clock (after a device restart or a pause): closes
    /// the current file; the next write opens a new one starting at `date`.
    public func reanchor(to date: Date) throws(AudioFileWriterError) {
        rolledAt = nil
        try closeCurrent()
        moveAnchor(to: date)
    }

    /// Appends interleaved frames, rolling files at boundaries.
    ///
    /// - Parameter capturedUntil: Wall-clock time just after the block's last
    ///   frame (a live device). When given, the clock is re-anchored to it at
    ///   each roll, so drift between the device clock and the wall clock never
    ///   accumulates for longer than a file; `OpenedFile.clockDrift` says by how much.
    public func write(
        _ samples: UnsafeBufferPointer<Float>, frames: Int, capturedUntil: Date? = nil
    ) throws(AudioFileWriterError) {
        let channels = format.channels
        wallClockReference = capturedUntil.map { (sessionFrame + Int64(frames), $0) }
        defer { wallClockReference = nil }
        var done = 0
        while done < frames {
            if current == nil { try openFile() }
            let remainingInFile = Int(current!.rollFrame - sessionFrame)
            let count = min(frames - done, remainingInFile)
            if count > 0 {
                try current!.writer.write(UnsafeBufferPointer(rebasing: samples[(done * channels)..<((done + count) * channels)]))
                sessionFrame += Int64(count)
                done += count
            }
            if sessionFrame >= current!.rollFrame {
                rolledAt = current!.boundary
                try closeCurrent()
            }
        }
        let now = ContinuousClock.now
        if let current, now - lastSync >= .seconds(syncInterval) {
            current.writer.sync()
            lastSync = now
        }
    }

    /// Advances the session clock by `frames` without writing them (audio writing
    /// suspended, e.g. the disk is full); closes the current file first.
    public func skip(frames: Int) {
        rolledAt = nil
        try? closeCurrent()
        sessionFrame += Int64(frames)
    }

    /// Closes the current file after a write error, ignoring further errors.
    public func abandonCurrent() throws(AudioFileWriterError) {
        try? closeCurrent()
    }

    /// Closes the current file (the next `write` opens a new one).
    public func close() throws(AudioFileWriterError) { try closeCurrent() }

    /// The file name for a file starting at `date`.
    public static func fileName(startingAt date: Date, sessionId: Int64, container: AudioFileContainer) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let stamp = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
        return "\(stamp)-s\(sessionId).\(container.fileExtension)"
    }

    private func openFile() throws(AudioFileWriterError) {
        var drift: Double?
        var nominalStart = time(ofFrame: sessionFrame).timeIntervalSince1970
        if let rolled = rolledAt {
            rolledAt = nil
            // The file starts at the boundary `rolled` (sample clock); on a live device
            // the wall clock says when that frame was really captured.
            nominalStart = rolled
            if let reference = wallClockReference {
                var wall = reference.time.addingTimeInterval(
                    -Double(reference.frame - sessionFrame) / Double(format.sampleRate))
                // A block delivered faster than real time (a buffered device catching up)
                // would put the roll before the previous file's start: keep starts in order.
                if let lastFileStart, wall <= lastFileStart { wall = lastFileStart.addingTimeInterval(0.001) }
                drift = wall.timeIntervalSince(time(ofFrame: sessionFrame))
                moveAnchor(to: wall)
            }
        }
        let start = time(ofFrame: sessionFrame)
        let interval = rollInterval
        // The next boundary after the nominal start: a re-anchored start a few
        // milliseconds before its boundary must not make a file of a few frames.
        let boundary = ((max(nominalStart, start.timeIntervalSince1970) / interval).rounded(.down) + 1) * interval
        let rate = Double(format.sampleRate)
        // Frame of the boundary in the session clock (at least one frame ahead).
        let rollFrame = max(
            sessionFrame + 1,
            anchorFrame + Int64(((boundary - anchor.timeIntervalSince1970) * rate).rounded(.up)))
        var path = "\(directory)/\(Self.fileName(startingAt: start, sessionId: sessionId, container: container))"
        var suffix = 1
        while FileManager.default.fileExists(atPath: path) {
            path = "\(directory)/\(Self.fileName(startingAt: start, sessionId: sessionId, container: container))"
                .replacingOccurrences(of: ".\(container.fileExtension)", with: "-\(suffix).\(container.fileExtension)")
            suffix += 1
        }
        let writer = try AudioFileWriter(path: path, format: format, container: container, encoding: encoding)
        let opened = OpenedFile(path: path, startFrame: sessionFrame, startedAt: start, clockDrift: drift)
        current = (writer, opened, rollFrame, boundary)
        lastFileStart = start
        lastSync = .now
        onOpen(opened)
    }

    private func closeCurrent() throws(AudioFileWriterError) {
        guard let current else { return }
        self.current = nil
        var failure: AudioFileWriterError?
        do { try current.writer.close() } catch { failure = error }
        var status = stat()
        let bytes = stat(current.opened.path, &status) == 0 ? Int64(status.st_size) : 0
        onClose(
            ClosedFile(
                path: current.opened.path, startFrame: current.opened.startFrame, startedAt: current.opened.startedAt,
                frames: current.writer.framesWritten, bytes: bytes))
        if let failure { throw failure }
    }
}
