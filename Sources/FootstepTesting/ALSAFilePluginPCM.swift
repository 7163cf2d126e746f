import FootstepAudio
import Foundation

/// A capture PCM made with ALSA's `file` plugin: it reads raw samples from a
/// file (`infile`) through a `null` slave, so capture goes through ALSA itself
/// without a sound card. Delivery is exact and unpaced; past the end of the
/// file ALSA keeps returning frames without touching the buffer, so callers
/// stop after `frames` themselves.
public struct ALSAFilePluginPCM {
    /// The PCM name to pass as the capture device.
    public let name: String
    /// The raw file ALSA reads.
    public let rawPath: String
    /// Frames in the raw file.
    public let frames: Int
    /// The configuration that defines `name`.
    public let configuration: ALSAConfigurationTree
    /// The configuration text (also usable as an `.asoundrc` for `arecord`).
    public let configurationText: String

    /// Writes `samples` (interleaved, in [-1, 1]) as raw `format` samples into
    /// `directory` and defines a PCM named `name` that captures them.
    public init(
        samples: [Float], channels: Int = 1, format: CaptureSampleFormat = .s16LE,
        name: String = "footstepdtest", in directory: String
    ) throws {
        let rawPath = "\(directory)/\(name).raw"
        var data = Data()
        switch format {
        case .s16LE:
            data.reserveCapacity(samples.count * 2)
            for sample in samples {
                let value = Int16(max(-32768, min(32767, (sample * 32768).rounded())))
                withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
            }
        case .floatLE:
            data.reserveCapacity(samples.count * 4)
            for sample in samples {
                withUnsafeBytes(of: sample.bitPattern.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        try data.write(to: URL(fileURLWithPath: rawPath))
        self.name = name
        self.rawPath = rawPath
        self.frames = samples.count / channels
        self.configurationText = Self.configurationText(name: name, infile: rawPath)
        self.configuration = try ALSAConfigurationTree(text: configurationText)
    }

    /// The `asoundrc` text defining a file-plugin capture PCM reading `infile`.
    public static func configurationText(name: String, infile: String) -> String {
        """
        pcm.\(name) {
            type file
            slave.pcm { type null }
            file "/dev/null"
            infile "\(infile)"
            format "raw"
        }
        """
    }

    /// The value a 16-bit round trip gives for `sample` (what capture returns for S16_LE).
    public static func quantized(_ sample: Float) -> Float {
        Float(Int16(max(-32768, min(32767, (sample * 32768).rounded())))) / 32768
    }
}
