/// The sample formats footstepd captures in.
public enum CaptureSampleFormat: String, Sendable, Codable, CaseIterable {
    /// Signed 16-bit little endian (every USB microphone supports it).
    case s16LE = "S16_LE"
    /// 32-bit float little endian.
    case floatLE = "FLOAT_LE"

    var bytesPerSample: Int {
        switch self {
        case .s16LE: 2
        case .floatLE: 4
        }
    }
}

/// How to open an ALSA capture device.
public struct ALSACaptureConfiguration: Sendable, Equatable {
    /// ALSA PCM name: `default`, `hw:CARD=Device,DEV=0`, `plughw:1,0`, `dsnoop:…`.
    /// Card names (`CARD=Name`) survive USB re-enumeration; card numbers do not.
    public var device: String = "default"
    /// Frames per second, 8000–96000.
    public var sampleRate: Int = 16000
    /// 1 or 2.
    public var channels: Int = 1
    /// The sample format asked of the device.
    public var sampleFormat: CaptureSampleFormat = .s16LE
    /// Frames per period (one `snd_pcm_readi`); 0 picks about 64 ms.
    public var periodFrames: Int = 0
    /// Periods in the device buffer.
    public var bufferPeriods: Int = 4
    /// Periods the hand-off ring holds before it drops (about 8 s with the defaults).
    public var ringPeriods: Int = 128
    /// Seconds without a single frame before `read` reports the device as lost.
    public var stallTimeout: Double = 5

    public init(
        device: String = "default", sampleRate: Int = 16000, channels: Int = 1,
        sampleFormat: CaptureSampleFormat = .s16LE, periodFrames: Int = 0, bufferPeriods: Int = 4,
        ringPeriods: Int = 128, stallTimeout: Double = 5
    ) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = sampleFormat
        self.periodFrames = periodFrames
        self.bufferPeriods = bufferPeriods
        self.ringPeriods = ringPeriods
        self.stallTimeout = stallTimeout
    }

    /// The period size actually used: `periodFrames`, or the power of two
    /// closest to 64 ms at the sample rate.
    public var effectivePeriodFrames: Int {
        if periodFrames > 0 { return periodFrames }
        var frames = 256
        while Double(frames * 2) <= Double(sampleRate) * 0.064 * 1.5 { frames *= 2 }
        return frames
    }

    /// Checks the ranges; the message names the parameter and its limits.
    public func validate() throws(AudioSourceError) {
        guard (8000...96000).contains(sampleRate) else {
            throw .invalidParameter("capture sample rate \(sampleRate) Hz is out of range (8000–96000)")
        }
        guard channels == 1 || channels == 2 else {
            throw .invalidParameter("capture channels must be 1 or 2, not \(channels)")
        }
        guard periodFrames == 0 || (32...65536).contains(periodFrames) else {
            throw .invalidParameter("capture period of \(periodFrames) frames is out of range (32–65536)")
        }
        guard (2...64).contains(bufferPeriods) else {
            throw .invalidParameter("capture buffer must hold 2–64 periods, not \(bufferPeriods)")
        }
        guard (4...4096).contains(ringPeriods) else {
            throw .invalidParameter("capture ring must hold 4–4096 periods, not \(ringPeriods)")
        }
        guard !device.isEmpty else { throw .invalidParameter("capture device name is empty") }
    }
}
