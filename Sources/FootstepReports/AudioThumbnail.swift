import Foundation

/// A waveform envelope and a small spectrogram of an event's clip, cheap enough to
/// compute for the ten loudest events of every report. The spectrogram is a plain DFT
/// (no FFTW here) evaluated at log-spaced frequencies from 25 Hz to 4 kHz, where
/// footsteps through a ceiling (35–120 Hz) get as much room as the clicks above them,
/// over about a hundred Hann-windowed frames of ~70 ms.
public struct AudioThumbnail: Sendable, Equatable {
    /// Per column: lowest and highest sample.
    public var envelope: [(min: Float, max: Float)]
    /// Frames × frequencies, 0 (50 dB below the clip's loudest cell) … 1 (loudest).
    public var spectrogram: [[Float]]
    /// The frequencies of the spectrogram rows, Hz, ascending (log-spaced).
    public var frequencies: [Double]
    /// Length of the clip, seconds.
    public var seconds: Double
    /// Where the event's onset (or peak) lies, seconds from the start.
    public var onsetSeconds: Double

    /// Analyses `audio`.
    ///
    /// - Parameters:
    ///   - columns: Envelope resolution.
    ///   - frames: Spectrogram columns.
    ///   - rows: Spectrogram frequencies.
    public init(_ audio: ReportAudio, columns: Int = 240, frames: Int = 96, rows: Int = 40) {
        let samples = audio.samples
        let rate = Double(max(audio.sampleRate, 1))
        seconds = Double(samples.count) / rate
        onsetSeconds = audio.onsetSeconds
        envelope = Self.envelope(samples, columns: columns)
        let top = min(4000, rate / 2 * 0.9)
        frequencies = (0..<rows).map { 25 * pow(top / 25, Double($0) / Double(max(1, rows - 1))) }
        spectrogram = Self.spectrogram(samples, rate: rate, size: max(32, Int(rate * 0.07)), frequencies: frequencies, frames: frames)
    }

    public static func == (lhs: AudioThumbnail, rhs: AudioThumbnail) -> Bool {
        lhs.spectrogram == rhs.spectrogram && lhs.seconds == rhs.seconds && lhs.onsetSeconds == rhs.onsetSeconds
            && lhs.frequencies == rhs.frequencies
            && lhs.envelope.elementsEqual(rhs.envelope) { $0.min == $1.min && $0.max == $1.max }
    }

    static func envelope(_ samples: [Float], columns: Int) -> [(min: Float, max: Float)] {
        guard !samples.isEmpty else { return [] }
        let count = min(columns, samples.count)
        return (0..<count).map { column in
            let start = column * samples.count / count
            let end = max(start + 1, (column + 1) * samples.count / count)
            var low: Float = 0, high: Float = 0
            for sample in samples[start..<end] {
                low = min(low, sample)
                high = max(high, sample)
            }
            return (low, high)
        }
    }

    /// Power (dB, normalised to 0…1 over 50 dB) of `frames` windows of `size` samples spread
    /// over the clip, at each of `frequencies`: a direct DFT sum whose phasor is advanced by
    /// one complex multiplication per sample.
    static func spectrogram(_ samples: [Float], rate: Double, size: Int, frequencies: [Double], frames: Int) -> [[Float]] {
        guard samples.count >= size else { return [] }
        let window = (0..<size).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(size))) }
        let steps = frequencies.map { (Float(cos(2 * Double.pi * $0 / rate)), Float(sin(2 * Double.pi * $0 / rate))) }
        let hop = max(1, (samples.count - size) / max(1, frames - 1))
        var frame = [Float](repeating: 0, count: size)
        var result: [[Float]] = []
        var start = 0
        while start + size <= samples.count, result.count < frames {
            for i in 0..<size { frame[i] = samples[start + i] * window[i] }
            result.append(steps.map { step in
                var re: Float = 0, im: Float = 0, c: Float = 1, s: Float = 0
                for i in 0..<size {
                    re += frame[i] * c
                    im -= frame[i] * s
                    (c, s) = (c * step.0 - s * step.1, s * step.0 + c * step.1)
                }
                return 10 * log10(re * re + im * im + 1e-20)
            })
            start += hop
        }
        let top = result.lazy.flatMap { $0 }.max() ?? 0
        return result.map { row in row.map { max(0, min(1, ($0 - top + 50) / 50)) } }
    }
}
