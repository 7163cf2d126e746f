import CSndfile
import FootstepCore
import Foundation

/// Cuts a stretch of a session's audio out of its rolling files (on demand:
/// an event whose clip is missing, or any time range a user asks for).
///
/// The session's files are given with their place in the session's sample
/// clock; the stretch may span several files and gaps between them (a pause,
/// a device loss, audio suspended while the disk was full), which are left
/// out: the clip holds the audio that exists.
public enum ClipExtractor {
    /// One rolling file of the session.
    public struct Source: Sendable, Equatable {
        public var path: String
        /// Session frame of the file's first frame.
        public var startFrame: Int64
        /// Frames the file holds.
        public var frames: Int64

        public init(path: String, startFrame: Int64, frames: Int64) {
            self.path = path
            self.startFrame = startFrame
            self.frames = frames
        }
    }

    /// A place where the written audio jumps over session frames no source holds.
    public struct Join: Sendable, Equatable {
        /// Frames of the written file before the join.
        public var outputFrame: Int64
        /// Session frame where the missing stretch begins.
        public var sessionFrame: Int64
        /// Session frames left out there.
        public var missingFrames: Int64

        public init(outputFrame: Int64, sessionFrame: Int64, missingFrames: Int64) {
            self.outputFrame = outputFrame
            self.sessionFrame = sessionFrame
            self.missingFrames = missingFrames
        }
    }

    /// The session frames of an event's clip: `before` seconds ahead of its onset (never before the session's
    /// first frame) to `after` seconds past its end, as the daemon cuts a clip that was not kept.
    public static func eventFrames(
        onsetFrame: Int64, duration: Double, before: Double, after: Double, sampleRate: Int
    ) -> Range<Int64> {
        let rate = Double(sampleRate)
        let start = max(0, onsetFrame - Int64(before * rate))
        return start..<(onsetFrame + Int64((after + max(0, duration)) * rate))
    }

    /// Where `extract` of the same range joins audio across frames that no source holds (a device loss, a pause, a
    /// pruned or missing file). Frames missing before the first held frame or after the last are not joins.
    public static func joins(of sources: [Source], startFrame: Int64, endFrame: Int64) -> [Join] {
        var joins: [Join] = []
        var written: Int64 = 0
        var heldUntil: Int64?
        for source in Self.sources(sources, startFrame: startFrame, endFrame: endFrame) {
            let from = max(startFrame, source.startFrame)
            let to = min(endFrame, source.startFrame + source.frames)
            if let heldUntil, from > heldUntil {
                joins.append(Join(outputFrame: written, sessionFrame: heldUntil, missingFrames: from - heldUntil))
            }
            written += to - from
            heldUntil = max(heldUntil ?? to, to)
        }
        return joins
    }

    /// The sources holding any of session frames `[startFrame, endFrame)`, in session order.
    private static func sources(_ sources: [Source], startFrame: Int64, endFrame: Int64) -> [Source] {
        sources.filter { $0.startFrame < endFrame && $0.startFrame + $0.frames > startFrame }
            .sorted { $0.startFrame < $1.startFrame }
    }

    /// Writes session frames `[startFrame, endFrame)` found in `sources` to `path`, with `comment` (when given) in
    /// the file's metadata (a WAV's ICMT, a FLAC's Vorbis comment).
    ///
    /// - Returns: The frames written.
    /// - Throws: `AudioFileWriterError` naming the output or the input that failed;
    ///   also when no file covers any part of the range.
    @discardableResult
    public static func extract(
        from sources: [Source], startFrame: Int64, endFrame: Int64, format: AudioFormat,
        container: AudioFileContainer, to path: String, comment: String? = nil
    ) throws(AudioFileWriterError) -> Int64 {
        let overlapping = Self.sources(sources, startFrame: startFrame, endFrame: endFrame)
        guard !overlapping.isEmpty else {
            throw AudioFileWriterError(path: path, reason: "no audio file holds frames \(startFrame)..<\(endFrame) (pruned or never written)")
        }
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        } catch {
            throw AudioFileWriterError(path: path, reason: "cannot create its directory: \(error.localizedDescription)")
        }
        // The clip keeps the recording's bit depth (float only where the container holds it).
        let recorded = AudioSampleEncoding(ofFileAt: overlapping[0].path) ?? .pcm16
        let writer = try AudioFileWriter(
            path: path, format: format, container: container, encoding: recorded.fits(container) ? recorded : .pcm24)
        if let comment { writer.setComment(comment) }
        var written: Int64 = 0
        do {
            for source in overlapping {
                let from = max(startFrame, source.startFrame) - source.startFrame
                let to = min(endFrame, source.startFrame + source.frames) - source.startFrame
                written += try copy(source.path, frames: from..<to, channels: format.channels, into: writer)
            }
            try writer.close()
        } catch {
            try? writer.close()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        return written
    }

    /// Copies file frames `range` of `path` into `writer`.
    private static func copy(
        _ path: String, frames range: Range<Int64>, channels: Int, into writer: AudioFileWriter
    ) throws(AudioFileWriterError) -> Int64 {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileWriterError(path: path, reason: "cannot open the recording: \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(handle) }
        guard Int(info.channels) == channels else {
            throw AudioFileWriterError(path: path, reason: "the recording has \(info.channels) channels, the clip \(channels)")
        }
        if range.lowerBound > 0, sf_seek(handle, sf_count_t(range.lowerBound), SEEK_SET) < 0 {
            throw AudioFileWriterError(path: path, reason: "cannot seek to frame \(range.lowerBound): \(String(cString: sf_strerror(handle)))")
        }
        let block = 4096
        var buffer = [Float](repeating: 0, count: block * channels)
        var remaining = range.count
        var copied: Int64 = 0
        while remaining > 0 {
            let wanted = min(block, remaining)
            let got = buffer.withUnsafeMutableBufferPointer { sf_readf_float(handle, $0.baseAddress, sf_count_t(wanted)) }
            if got <= 0 { break }  // a file cut short (crash): keep what is there
            try buffer.withUnsafeBufferPointer { buffer throws(AudioFileWriterError) in
                try writer.write(UnsafeBufferPointer(rebasing: buffer[0..<(Int(got) * channels)]))
            }
            remaining -= Int(got)
            copied += Int64(got)
        }
        return copied
    }
}
