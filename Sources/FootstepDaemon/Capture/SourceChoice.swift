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
    /// The built-in synthetic scenario (`walking`, `night:seed=3`, …).
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
        case "demo": self = .demo(scenario: rest.flatMap { $0.isEmpty ? nil : $0 } ?? "night")
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

    /// Opens the source. `speed` > 0 paces it at that multiple of real time
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
            let parsed = try SynthesisScenario(parsing: scenario)
            source = try SyntheticSource(scenario: parsed)
        }
        if let maximumFrames { source = LimitedSource(source, frames: maximumFrames) }
        if let speed, speed > 0 { source = PacedSource(source, speed: speed) }
        return source
    }
}
