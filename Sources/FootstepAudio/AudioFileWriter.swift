import CSndfile
import FootstepCore

extension AudioSampleEncoding {
    /// libsndfile's format for this encoding in `container`.
    fileprivate func sndfileFormat(in container: AudioFileContainer) -> Int32 {
        let major = container == .flac ? Int32(SF_FORMAT_FLAC) : Int32(SF_FORMAT_WAV)
        switch self {
        case .pcm16: return major | Int32(SF_FORMAT_PCM_16)
        case .pcm24: return major | Int32(SF_FORMAT_PCM_24)
        case .float: return major | Int32(SF_FORMAT_FLOAT)
        }
    }

    /// The encoding of an open libsndfile file's samples (16-bit for other integer sizes).
    init(sndfileFormat format: Int32) {
        switch format & Int32(SF_FORMAT_SUBMASK) {
        case Int32(SF_FORMAT_PCM_24), Int32(SF_FORMAT_PCM_32): self = .pcm24
        case Int32(SF_FORMAT_FLOAT), Int32(SF_FORMAT_DOUBLE): self = .float
        default: self = .pcm16
        }
    }

    /// The encoding of the audio file at `path`; nil when it cannot be opened.
    public init?(ofFileAt path: String) {
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        sf_close(handle)
        self.init(sndfileFormat: info.format)
    }
}

/// An error writing an audio file, naming the file.
public struct AudioFileWriterError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot write audio file '\(path)': \(reason)" }
}

/// Writes interleaved float samples to a WAV or FLAC file through libsndfile.
public final class AudioFileWriter {
    public let path: String
    public let format: AudioFormat
    public let container: AudioFileContainer
    public let encoding: AudioSampleEncoding
    /// Frames written so far.
    public private(set) var framesWritten: Int64 = 0

    private var handle: OpaquePointer?

    /// Creates (or truncates) `path`.
    ///
    /// - Throws: When `container` cannot hold `encoding` or `format`, or the file cannot be created.
    public init(
        path: String, format: AudioFormat, container: AudioFileContainer, encoding: AudioSampleEncoding = .pcm16
    ) throws(AudioFileWriterError) {
        self.path = path
        self.format = format
        self.container = container
        self.encoding = encoding
        var info = SF_INFO()
        info.samplerate = Int32(format.sampleRate)
        info.channels = Int32(format.channels)
        info.format = encoding.sndfileFormat(in: container)
        guard encoding.fits(container), sf_format_check(&info) != 0 else {
            let bits = encoding == .float ? "32-bit float" : "\(encoding.rawValue)-bit"
            throw AudioFileWriterError(path: path, reason: "\(container.rawValue) does not support \(bits) samples at \(format)")
        }
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFileWriterError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        self.handle = handle
        // Clip instead of wrapping around when a float sample exceeds [-1, 1].
        sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        if container == .wav {
            sf_command(handle, Int32(SFC_SET_UPDATE_HEADER_AUTO), nil, Int32(SF_TRUE))
        }
    }

    deinit { try? close() }

    /// Sets the file's comment (a WAV's ICMT, a FLAC's Vorbis COMMENT); before the first `write`, as FLAC
    /// writes its metadata ahead of the audio.
    public func setComment(_ text: String) {
        guard let handle else { return }
        sf_set_string(handle, Int32(SF_STR_COMMENT), text)
    }

    /// Appends `samples` (interleaved, a whole number of frames).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileWriterError) {
        guard let handle else { throw AudioFileWriterError(path: path, reason: "the file is closed") }
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        let frames = samples.count / format.channels
        let written = sf_writef_float(handle, base, sf_count_t(frames))
        framesWritten += Int64(written)
        if written != frames {
            throw AudioFileWriterError(path: path, reason: String(cString: sf_strerror(handle)))
        }
    }

    /// Flushes buffered data to the operating system and disk (fsync).
    public func sync() {
        if let handle { sf_write_sync(handle) }
    }

    /// Finalises the header (FLAC total_samples, WAV lengths) and closes the file.
    public func close() throws(AudioFileWriterError) {
        guard let handle else { return }
        self.handle = nil
        if sf_close(handle) != 0 {
            throw AudioFileWriterError(path: path, reason: "closing failed: \(String(cString: sf_strerror(nil)))")
        }
    }
}
