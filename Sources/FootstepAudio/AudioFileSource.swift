import CSndfile
import Glibc

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

    /// Opens `path` for reading.
    /// - Throws: `AudioSourceError.unreadableFile` when the file is missing, not
    ///   audio or corrupt, `.emptyFile` when it holds no frames.
    public init(path: String) throws(AudioSourceError) {
        self.path = path
        self.name = "file:\(path)"
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw .unreadableFile(path: path, reason: Self.describeOpenFailure(path: path))
        }
        guard info.channels > 0, info.samplerate > 0 else {
            sf_close(handle)
            throw .unreadableFile(path: path, reason: "the header declares \(info.channels) channels at \(info.samplerate) Hz")
        }
        // FLAC files whose writer was killed report SF_COUNT_MAX ("unknown"): read to EOF.
        let frames = info.frames
        if frames == 0 {
            sf_close(handle)
            throw .emptyFile(path: path)
        }
        self.handle = handle
        self.format = AudioFormat(sampleRate: Int(info.samplerate), channels: Int(info.channels))
        self.frameCount = (frames > 0 && frames < Int64(Int32.max) * 1024) ? Int(frames) : nil
    }

    deinit { close() }

    public func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int {
        guard let handle, let base = buffer.baseAddress else { return 0 }
        let wanted = buffer.count / format.channels
        guard wanted > 0 else { return 0 }
        let got = Int(sf_readf_float(handle, base, sf_count_t(wanted)))
        if got > 0 {
            framesDelivered += got
            return got
        }
        let code = sf_error(handle)
        if code != 0 {
            let reason = String(cString: sf_error_number(code))
            throw .unreadableFile(path: path, reason: "decoding failed after \(framesDelivered) frames: \(reason)")
        }
        if let expected = frameCount, framesDelivered < expected {
            let delivered = framesDelivered
            framesDelivered = expected  // report the truncation once
            throw .truncatedFile(path: path, expectedFrames: expected, actualFrames: delivered)
        }
        if framesDelivered == 0 {
            framesDelivered = -1
            throw .emptyFile(path: path)
        }
        return 0
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
