import CSndfile
import Foundation

/// Reads any file libsndfile can decode (WAV, FLAC, OGG/Vorbis, Opus, AIFF, …)
/// as interleaved float samples, at the file's own rate and channel count.
public final class AudioFileSource: AudioSource {
    public let format: AudioFormat
    public let name: String
    public let frameCount: Int?
    /// The path the file was opened from.
    public let path: String

    private var handle: OpaquePointer?
    private var framesDelivered = 0
    /// Samples replaced by 0 because they were not finite or out of range (`SampleSanity`).
    public private(set) var invalidSamples = 0
    private var declaredFrameCount: Int?
    /// True for an Ogg stream whose length libsndfile could not find: its last page,
    /// which carries the final position, is missing (the file was cut short).
    private var lacksOggEnd: Bool

    /// Opens `path` for reading.
    /// - Throws: `AudioSourceError.unreadableFile` when the file is missing, not
    ///   audio or corrupt, or a FIFO, device or socket (one would block with no
    ///   writer or never end), `.emptyFile` when it holds no frames.
    public init(path: String) throws(AudioSourceError) {
        self.path = path
        self.name = "file:\(path)"
        var status = stat()
        if stat(path, &status) == 0, [S_IFIFO, S_IFCHR, S_IFBLK, S_IFSOCK].contains(status.st_mode & S_IFMT) {
            let what = status.st_mode & S_IFMT == S_IFIFO ? "a FIFO" : status.st_mode & S_IFMT == S_IFSOCK ? "a socket" : "a device"
            throw .unreadableFile(
                path: path,
                reason: "\(what), not a recorded audio file; for live audio run footstepd with --source alsa:DEVICE")
        }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw .unreadableFile(path: path, reason: Self.describeOpenFailure(path: path))
        }
        guard AudioFormat.plausibleSampleRates.contains(Int(info.samplerate)),
            AudioFormat.plausibleChannels.contains(Int(info.channels))
        else {
            sf_close(handle)
            let rates = AudioFormat.plausibleSampleRates, channels = AudioFormat.plausibleChannels
            throw .unreadableFile(
                path: path,
                reason: "the header declares \(info.channels) channel\(info.channels == 1 ? "" : "s") at \(info.samplerate) Hz, "
                    + "which no recording has "
                    + "(footstepd reads \(channels.lowerBound)–\(channels.upperBound) channels at "
                    + "\(rates.lowerBound)–\(rates.upperBound) Hz): the file is corrupt or not what it claims to be")
        }
        // FLAC files whose writer was killed report SF_COUNT_MAX ("unknown"): read to EOF.
        let frames = info.frames
        if frames == 0 {
            sf_close(handle)
            throw .emptyFile(path: path)
        }
        self.handle = handle
        self.format = AudioFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels))
        self.frameCount = frames > 0 && frames < sf_count_t.max ? Int(frames) : nil
        self.declaredFrameCount = Self.declaredDataFrames(handle) ?? self.frameCount
        self.lacksOggEnd = info.format & Int32(SF_FORMAT_TYPEMASK) == Int32(SF_FORMAT_OGG) && frameCount == nil
    }

    /// The frame count the header announces when it is larger than the file
    /// holds (libsndfile then caps `frames` and notes "data : N (should be M)"
    /// in its log). Nil when the header is consistent.
    private static func declaredDataFrames(_ handle: OpaquePointer) -> Int? {
        var log = [CChar](repeating: 0, count: 4096)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var declaredBytes: Int?
        var blockAlign: Int?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 2 else { continue }
            if fields[0] == "data", fields[1].contains("should be") {
                declaredBytes = Int(fields[1].prefix { $0.isNumber })
            } else if fields[0] == "Block Align" {
                blockAlign = Int(fields[1])
            }
        }
        guard let declaredBytes, let blockAlign, blockAlign > 0 else { return nil }
        return declaredBytes / blockAlign
    }

    deinit { close() }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        guard let handle, let base = buffer.baseAddress else { return 0 }
        let wanted = buffer.count / format.channels
        guard wanted > 0 else { return 0 }
        let got = Int(sf_readf_float(handle, base, sf_count_t(wanted)))
        if got > 0 {
            framesDelivered += got
            invalidSamples += SampleSanity.sanitize(buffer, count: got * format.channels)
            return got
        }
        let code = sf_error(handle)
        if code != 0 {
            let reason = String(cString: sf_error_number(code))
            throw .unreadableFile(path: path, reason: "decoding failed after \(framesDelivered) frames: \(reason)")
        }
        if let expected = declaredFrameCount, framesDelivered < expected {
            let delivered = framesDelivered
            framesDelivered = expected  // report the truncation once
            throw .truncatedFile(path: path, expectedFrames: expected, actualFrames: delivered)
        }
        if framesDelivered == 0 {
            framesDelivered = -1
            throw .emptyFile(path: path)
        }
        if lacksOggEnd, framesDelivered > 0 {
            lacksOggEnd = false  // report the cut once
            throw .unterminatedStream(path: path, actualFrames: framesDelivered)
        }
        return 0
    }

    /// Moves to `frame` (from the file's start): the next `read` starts there.
    /// - Throws: `AudioSourceError.unreadableFile` when the file cannot seek there.
    public func seek(toFrame frame: Int) throws(AudioSourceError) {
        guard let handle else { return }
        guard sf_seek(handle, sf_count_t(frame), SEEK_SET) == sf_count_t(frame) else {
            throw .unreadableFile(path: path, reason: "cannot seek to frame \(frame)")
        }
        framesDelivered = frame
    }

    public func close() {
        if let handle {
            sf_close(handle)
            self.handle = nil
        }
    }

    private static func describeOpenFailure(path: String) -> String {
        var status = stat()
        if stat(path, &status) != 0 {
            return String(cString: strerror(errno))
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            return "it is a directory"
        }
        if status.st_size == 0 {
            return "the file is empty (0 bytes)"
        }
        let reason = String(cString: sf_strerror(nil))
        return "not a supported audio file or corrupt (\(reason))"
    }
}
