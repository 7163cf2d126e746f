/// The container and encoding of recorded audio files.
public enum AudioFileContainer: String, Sendable, Codable, CaseIterable {
    /// FLAC, 16-bit: lossless, about half the size of WAV.
    case flac
    /// WAV, 16-bit PCM; the header is rewritten after every write, so the
    /// file is readable by any tool after a crash.
    case wav

    /// The usual file extension.
    public var fileExtension: String { rawValue }

    /// Picks the container from a path's extension (`.wav` or `.flac`).
    public init?(pathExtension path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".wav") { self = .wav } else if lower.hasSuffix(".flac") { self = .flac } else { return nil }
    }
}
