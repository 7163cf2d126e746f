import FootstepCore
import Foundation

/// Cuts each event's clip (`before` seconds before its onset to `after`
/// seconds after) from the stream as it passes, so clips exist even when the
/// full audio is not kept (retention, disk low).
///
/// The last `before + after + maximumDelay` seconds of audio live in a ring
/// allocated in `init`; `append` copies each block into it without
/// allocating. An event asks for its clip with `request` (the pipeline
/// reports events within a few seconds of their onset, `maximumDelay` covers
/// that: `AnalysisConfiguration.maximumEventDelay`); the
/// clip file is written as soon as the stream has passed its end, a few
/// milliseconds of work for a 5 s clip. Clips are named
/// `<directory>/<UTC yyyy-MM-dd>/<UTC yyyyMMdd'T'HHmmss.SSS'Z'>-s<session>-f<onset frame>.<ext>`.
///
/// - Note: Not thread-safe: call from one thread (the pipeline's).
public final class EventClipRecorder {
    /// A clip file that was written.
    public struct Clip: Sendable, Equatable {
        public var path: String
        /// Session frame of the event's onset (identifies the event).
        public var onsetFrame: Int64
        /// Session frame of the clip's first frame.
        public var startFrame: Int64
        public var frames: Int64
        /// Wall-clock time of the clip's first frame.
        public var startedAt: Date
    }

    private struct Request {
        var onsetFrame: Int64
        var startFrame: Int64
        var endFrame: Int64
        var startedAt: Date
    }

    public let directory: String
    public let container: AudioFileContainer
    /// How the files store samples.
    public let encoding: AudioSampleEncoding
    public let format: AudioFormat
    public let sessionId: Int64
    public let framesBefore: Int64
    public let framesAfter: Int64

    /// Called after a clip file was written and closed.
    public var onClip: (Clip) -> Void = { _ in }
    /// Called when a clip could not be written (the event itself is kept).
    public var onError: (String) -> Void = { _ in }

    private var ring: [Float]
    private let capacityFrames: Int64
    /// Session frame just after the newest frame in the ring.
    private var endFrame: Int64 = 0
    /// Oldest session frame the ring holds (after a discontinuity, nothing before it).
    private var firstFrame: Int64 = 0
    private var pending: [Request] = []
    private let maximumPending = 64

    /// - Parameters:
    ///   - directory: The clips root (`<state>/clips`).
    ///   - maximumDelay: Longest delay, seconds, between an onset and its `request`.
    public init(
        directory: String, container: AudioFileContainer, encoding: AudioSampleEncoding = .pcm16, format: AudioFormat,
        sessionId: Int64,
        before: Double, after: Double, maximumDelay: Double = 4
    ) {
        precondition(before >= 0 && after >= 0 && maximumDelay >= 0)
        self.directory = directory
        self.container = container
        self.encoding = encoding
        self.format = format
        self.sessionId = sessionId
        let rate = Double(format.sampleRate)
        framesBefore = Int64((before * rate).rounded())
        framesAfter = max(1, Int64((after * rate).rounded()))
        capacityFrames = framesBefore + framesAfter + Int64((maximumDelay * rate).rounded())
        ring = [Float](repeating: 0, count: Int(capacityFrames) * format.channels)
        pending.reserveCapacity(maximumPending)
    }

    /// Clips requested whose end the stream has not reached yet.
    public var pendingCount: Int { pending.count }

    /// Adds `frames` interleaved frames whose first is session frame `frame`. A
    /// jump in `frame` (frames skipped while paused) writes the pending clips
    /// with what they have and restarts the ring.
    public func append(_ samples: UnsafeBufferPointer<Float>, frames: Int, at frame: Int64) {
        if frame != endFrame {
            flushPending()
            firstFrame = frame
            endFrame = frame
        }
        let channels = format.channels
        var done = 0
        ring.withUnsafeMutableBufferPointer { ring in
            while done < frames {
                let position = Int(endFrame % capacityFrames)
                let count = min(frames - done, Int(capacityFrames) - position)
                (ring.baseAddress! + position * channels)
                    .update(from: samples.baseAddress! + done * channels, count: count * channels)
                done += count
                endFrame += Int64(count)
            }
        }
        firstFrame = max(firstFrame, endFrame - capacityFrames)
        while let first = pending.first, first.endFrame <= endFrame {
            write(pending.removeFirst())
        }
    }

    /// Asks for the clip of the event with onset at session frame `onsetFrame`
    /// (wall-clock `onsetTime`).
    public func request(onsetFrame: Int64, onsetTime: Date) {
        let start = max(0, onsetFrame - framesBefore)
        let startedAt = onsetTime.addingTimeInterval(-Double(onsetFrame - start) / Double(format.sampleRate))
        let request = Request(onsetFrame: onsetFrame, startFrame: start, endFrame: onsetFrame + framesAfter, startedAt: startedAt)
        if pending.count == maximumPending { write(pending.removeFirst()) }
        pending.append(request)
        if request.endFrame <= endFrame { write(pending.removeLast()) }
    }

    /// Forgets the pending clips and the ring (audio is not being kept: disk low).
    public func discardPending() {
        for request in pending { onError("clip of the event at frame \(request.onsetFrame) not written: audio suspended") }
        pending.removeAll(keepingCapacity: true)
        firstFrame = endFrame
    }

    /// Writes every pending clip with the audio there is (end of the session).
    public func flushPending() {
        for request in pending { write(request) }
        pending.removeAll(keepingCapacity: true)
    }

    /// The clip path for an event.
    public static func path(
        directory: String, onsetTime: Date, sessionId: Int64, onsetFrame: Int64, container: AudioFileContainer
    ) -> String {
        let milliseconds = Int64((onsetTime.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let day = "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))"
        let stamp = "\(pad(parts.tm_year + 1900, 4))\(pad(parts.tm_mon + 1))\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour))\(pad(parts.tm_min))\(pad(parts.tm_sec)).\(pad(Int32(milliseconds % 1000), 3))Z"
        return "\(directory)/\(day)/\(stamp)-s\(sessionId)-f\(onsetFrame).\(container.fileExtension)"
    }

    private func write(_ request: Request) {
        let start = max(request.startFrame, firstFrame)
        let end = min(request.endFrame, endFrame)
        guard end > start else {
            onError("no audio left for the clip of the event at frame \(request.onsetFrame)")
            return
        }
        let onsetTime = request.startedAt.addingTimeInterval(
            Double(request.onsetFrame - request.startFrame) / Double(format.sampleRate))
        let path = Self.path(
            directory: directory, onsetTime: onsetTime, sessionId: sessionId, onsetFrame: request.onsetFrame,
            container: container)
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let writer = try AudioFileWriter(path: path, format: format, container: container, encoding: encoding)
            let channels = format.channels
            try ring.withUnsafeBufferPointer { ring throws(AudioFileWriterError) in
                var frame = start
                while frame < end {
                    let position = Int(frame % capacityFrames)
                    let count = min(Int(end - frame), Int(capacityFrames) - position)
                    try writer.write(UnsafeBufferPointer(rebasing: ring[(position * channels)..<((position + count) * channels)]))
                    frame += Int64(count)
                }
            }
            try writer.close()
            let startedAt = request.startedAt.addingTimeInterval(Double(start - request.startFrame) / Double(format.sampleRate))
            onClip(Clip(path: path, onsetFrame: request.onsetFrame, startFrame: start, frames: end - start, startedAt: startedAt))
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            onError("cannot write the clip \(path): \(error)")
        }
    }
}
