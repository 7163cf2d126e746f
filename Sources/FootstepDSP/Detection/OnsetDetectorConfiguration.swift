/// Tuning of the impact/onset detector. The defaults were chosen on the
/// project's synthesized scenarios and are documented in ARCHITECTURE.md.
public struct OnsetDetectorConfiguration: Sendable, Equatable, Codable {
    /// Stream sample rate in Hz.
    public var sampleRate: Double
    /// Detection threshold in units of the background's own fluctuation;
    /// lower is more sensitive.
    public var threshold: Double = 1.0
    /// Shortest time between two onsets in seconds (a heel and its toe
    /// contact within this time are one step).
    public var minimumInterOnsetInterval: Double = 0.13
    /// An event is closed at the latest after this many seconds.
    public var maximumEventDuration: Double = 1.0
    /// Lowest analysed frequency in Hz.
    public var lowestFrequency: Double = 25
    /// Highest analysed frequency in Hz (capped at 0.45 × sample rate).
    public var highestFrequency: Double = 4000
    /// dBFS to dB SPL offset, the same as the level meter's (for SEL).
    public var calibrationOffsetDB: Double = 0

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    /// The longest time, seconds, from an onset to the detector reporting its
    /// event: the event's longest duration plus detection latency and the end
    /// hold (both under 0.2 s).
    public var maximumReportDelay: Double { maximumEventDuration + 0.2 }

    /// Frames between two analysis frames (10 ms).
    public var hopFrames: Int { max(16, Int((sampleRate * 0.010).rounded())) }

    /// FFT length: the power of two nearest above 32 ms.
    public var fftSize: Int {
        var size = 256
        while Double(size) < sampleRate * 0.032 { size *= 2 }
        return size
    }

    /// Checks ranges; the message names the setting.
    public func validate() throws(DSPError) {
        guard (8000...192_000).contains(sampleRate) else {
            throw .invalidParameter("detector sample rate \(sampleRate) Hz is out of range (8000–192000)")
        }
        guard threshold > 0, threshold < 100 else {
            throw .invalidParameter("detector threshold \(threshold) must be between 0 and 100")
        }
        guard (0.02...2).contains(minimumInterOnsetInterval) else {
            throw .invalidParameter("detector minimum inter-onset interval \(minimumInterOnsetInterval) s must be 0.02–2 s")
        }
        guard (0.1...10).contains(maximumEventDuration) else {
            throw .invalidParameter("detector maximum event duration \(maximumEventDuration) s must be 0.1–10 s")
        }
        guard lowestFrequency >= 10, highestFrequency > lowestFrequency * 4 else {
            throw .invalidParameter("detector band \(lowestFrequency)–\(highestFrequency) Hz is too narrow (needs two octaves from at least 10 Hz)")
        }
    }
}
