/// The sample rate and channel count of an audio stream.
public struct AudioFormat: Sendable, Hashable, CustomStringConvertible {
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels per frame (1 or 2 for capture; any count for files).
    public var channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    public var description: String { "\(sampleRate) Hz, \(channels) ch" }

    /// The rates a recording can have. A header outside them is corrupt or
    /// hostile: a WAV claiming 1 Hz would cost minutes of CPU and invent
    /// thousands of events, one claiming 2 GHz would find none.
    public static let plausibleSampleRates = 4_000...768_000
    /// The channel counts a recording can have.
    public static let plausibleChannels = 1...64
}

/// A producer of interleaved 32-bit float samples in [-1, 1]: an ALSA device,
/// an audio file or the synthetic scenario. The analysis pipeline is the same
/// for all of them.
///
/// - Note: `read(into:)` is called from one thread at a time (the pipeline's).
public protocol AudioSource: AnyObject {
    /// The format of the samples `read(into:)` delivers.
    var format: AudioFormat { get }
    /// A short human-readable name, e.g. `alsa:hw:1,0` or `file:/tmp/night.flac`.
    var name: String { get }
    /// Total frames if known in advance (files, synthetic scenarios), nil for live devices.
    var frameCount: Int? { get }

    /// Fills `buffer` with up to `buffer.count / format.channels` interleaved frames.
    /// Blocks until at least one frame is available. Returns the number of frames
    /// written, or 0 at the end of the stream.
    func read(into buffer: UnsafeMutableBufferPointer<Float>) throws(AudioSourceError) -> Int

    /// Samples delivered so far that were not finite or beyond ±`SampleSanity.limit`,
    /// replaced by 0 before delivery (`SampleSanity`).
    var invalidSamples: Int { get }

    /// Frames of the stream lost just before the frames the last `read`
    /// delivered: periods a live device dropped because its reader fell
    /// behind. 0 where the stream is continuous (always, for files and the
    /// synthesizer).
    var framesLostBeforeLastRead: Int { get }

    /// Releases the device or file. Further reads return 0.
    func close()
}

/// Why an audio source could not be opened or read. Every case names the
/// device or file and carries what a user needs to fix it.
public enum AudioSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ALSA device could not be opened. `available` lists the capture devices that do exist.
    case deviceUnavailable(device: String, code: Int32, reason: String, available: [String])
    /// The device rejected the requested format (rate, channels, sample format).
    case unsupportedFormat(device: String, requested: String, reason: String)
    /// Reading failed after the device had been running (unplugged, driver
    /// error): the device is closed and must be opened again.
    case deviceLost(device: String, code: Int32, reason: String)
    /// No audio arrived for `seconds`, but the device is still open and being
    /// read: reading again resumes as soon as the audio does.
    case stalled(device: String, seconds: Double)
    /// The file could not be opened or decoded.
    case unreadableFile(path: String, reason: String)
    /// The file opened but holds no audio frames.
    case emptyFile(path: String)
    /// The file ended before the length its header announces (for example a
    /// recording cut short by a crash). Every frame before the cut was delivered.
    case truncatedFile(path: String, expectedFrames: Int, actualFrames: Int)
    /// An Ogg file ended without its last page, which carries the stream's
    /// length: it was cut short (a copy or download that did not finish).
    /// Every frame before the cut was delivered.
    case unterminatedStream(path: String, actualFrames: Int)
    /// A configuration value is out of range (sample rate, channels, period).
    case invalidParameter(String)

    public var description: String {
        switch self {
        case let .deviceUnavailable(device, code, reason, available):
            let list = available.isEmpty ? "no capture devices were found" : "capture devices: \(available.joined(separator: ", "))"
            return "cannot open ALSA capture device '\(device)': \(reason) (error \(code)); \(list)"
        case let .unsupportedFormat(device, requested, reason):
            return "ALSA capture device '\(device)' does not support \(requested): \(reason)"
        case let .deviceLost(device, code, reason):
            return "ALSA capture device '\(device)' stopped delivering audio: \(reason) (error \(code))"
        case let .stalled(device, seconds):
            return "capture device '\(device)' delivered no audio for \(seconds.formatted(.number.precision(.fractionLength(0...1)))) s; still waiting for it"
        case let .unreadableFile(path, reason):
            return "cannot read audio file '\(path)': \(reason)"
        case let .emptyFile(path):
            return "audio file '\(path)' contains no audio frames"
        case let .truncatedFile(path, expected, actual):
            return "audio file '\(path)' is truncated: its header announces \(expected) frames but only \(actual) could be read"
        case let .unterminatedStream(path, actual):
            return "audio file '\(path)' is cut short: the Ogg stream ends without its last page after \(actual) frames (an unfinished copy or download?)"
        case let .invalidParameter(message):
            return message
        }
    }
}

extension AudioSource {
    /// Sources that cannot produce impossible samples (integer PCM, the synthesizer) report none.
    public var invalidSamples: Int { 0 }
    /// Sources that cannot fall behind (files, the synthesizer) lose no frames.
    public var framesLostBeforeLastRead: Int { 0 }
}
