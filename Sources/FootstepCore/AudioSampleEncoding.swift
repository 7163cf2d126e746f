/// How recorded audio files store each sample (`recording.bit_depth`).
public enum AudioSampleEncoding: String, Sendable, Codable, CaseIterable {
    /// 16-bit integers: about 96 dB between full scale and the quantisation
    /// floor, more than a USB or MEMS microphone's own range. The default.
    case pcm16 = "16"
    /// 24-bit integers: keeps a quiet night's detail when the capture gain is low.
    case pcm24 = "24"
    /// 32-bit float: the samples exactly as analysed (WAV only; FLAC stores integers).
    case float

    /// Whether `container` can hold it (FLAC holds 16 and 24 bits, WAV all three).
    public func fits(_ container: AudioFileContainer) -> Bool {
        container == .wav || self != .float
    }
}
