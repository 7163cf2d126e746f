import FootstepAudio
import FootstepConfiguration
import Foundation

/// Where the daemon takes its audio from (`--source`).
public enum SourceChoice: Sendable, Equatable, CustomStringConvertible {
    /// An ALSA capture PCM; nil uses `capture.device` from the configuration.
    /// `tree` resolves the name in a private ALSA configuration (tests' file-plugin PCMs).
    case alsa(device: String?, tree: ALSAConfigurationTree? = nil)
    /// An audio file, read once to its end.
    case file(path: String)
    /// The built-in synthetic scenario (`walking`, `night:seed=3`, …). A
    /// `device_loss=START+LENGTH` parameter (seconds) unplugs its simulated
    /// microphone for LENGTH seconds, START seconds in (`SimulatedOutageSource`).
    case demo(scenario: String)

    /// Parses `alsa[:DEVICE]`, `file:PATH` or `demo[:SCENARIO]`.
    public init(parsing text: String) throws(AudioSourceError) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        let rest = parts.count == 2 ? parts[1] : nil
        switch parts.first ?? "" {
        case "alsa": self = .alsa(device: rest.flatMap { $0.isEmpty ? nil : $0 })
        case "file":
            guard let rest, !rest.isEmpty else { throw .invalidParameter("--source file:PATH needs a path") }
            self = .file(path: rest)
        case "demo":
            self = .demo(scenario: rest.flatMap { $0.isEmpty ? nil : $0 } ?? "night")
            _ = try Self.deviceLoss(in: rest ?? "")
        default:
            throw .invalidParameter("--source must be alsa[:DEVICE], file:PATH or demo[:SCENARIO], got '\(text)'")
        }
    }

    /// True for sources that end (files, scenarios): the daemon stops at their end.
    public var isFinite: Bool {
        if case .alsa = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case let .alsa(device, _): "alsa:\(device ?? "(configured)")"
        case let .file(path): "file:\(path)"
        case let .demo(scenario): "demo:\(scenario)"
        }
    }

    public static func == (lhs: SourceChoice, rhs: SourceChoice) -> Bool { lhs.description == rhs.description }

    /// Opens the source at its own rate: the session records at it, and the capture
    /// thread converts it for analysis (``AnalysisRateFeed``). `speed` > 0 paces it at that multiple of real time
    /// (files and scenarios; ALSA devices are paced by their clock);
    /// `maximumFrames` ends the stream after that many frames.
    func open(
        configuration: DaemonConfiguration, speed: Double?, maximumFrames: Int?, ringPeriods: Int? = nil
    ) throws(AudioSourceError) -> any AudioSource {
        var source: any AudioSource
        switch self {
        case let .alsa(device, tree):
            let capture = configuration.capture
            var alsa = ALSACaptureConfiguration(
                device: device ?? capture.device, sampleRate: capture.sampleRate, channels: capture.channels,
                sampleFormat: capture.sampleFormat, periodFrames: capture.periodFrames)
            if let ringPeriods { alsa.ringPeriods = ringPeriods }
            source = try ALSACaptureSource(configuration: alsa, alsaConfiguration: tree)
        case let .file(path):
            source = try AudioFileSource(path: path)
        case let .demo(scenario):
            let (synthesis, _) = try Self.deviceLoss(in: scenario)
            source = try SyntheticSource(scenario: try SynthesisScenario(parsing: synthesis))
        }
        if let maximumFrames { source = LimitedSource(source, frames: maximumFrames) }
        if let speed, speed > 0 { source = PacedSource(source, speed: speed) }
        if case let .demo(scenario) = self, let loss = try Self.deviceLoss(in: scenario).loss {
            // Outside the pacing: the outage's audio is read at the stream's pace and dropped.
            let rate = Double(source.format.sampleRate)
            source = SimulatedOutageSource(
                source, outage: Int64(loss.start * rate)..<Int64((loss.start + loss.length) * rate))
        }
        return source
    }

    /// Splits `device_loss=START+LENGTH` off a demo scenario: the synthesizer's
    /// scenario text and the loss (seconds), if any.
    static func deviceLoss(in scenario: String) throws(AudioSourceError) -> (String, loss: (start: Double, length: Double)?) {
        let parts = scenario.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return (scenario, nil) }
        var loss: (start: Double, length: Double)?
        var kept: [Substring] = []
        for item in parts[1].split(separator: ",") {
            guard item.hasPrefix("device_loss=") else {
                kept.append(item)
                continue
            }
            let numbers = item.dropFirst("device_loss=".count).split(separator: "+", omittingEmptySubsequences: false).map { Double($0) }
            guard numbers.count == 2, let start = numbers[0], let length = numbers[1], start >= 0, length > 0,
                start.isFinite, length.isFinite
            else {
                throw .invalidParameter(
                    "demo scenario '\(scenario)': device_loss must be START+LENGTH in seconds (e.g. device_loss=9000+900), got '\(item)'")
            }
            loss = (start, length)
        }
        return (kept.isEmpty ? parts[0] : parts[0] + ":" + kept.joined(separator: ","), loss)
    }
}
