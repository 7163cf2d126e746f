import Glibc

/// The onset detector's low-band input: the stream low-passed (a 4th-order
/// Butterworth at 450 Hz, at most 0.4 of the decimated rate) and decimated to
/// about 2 kHz, which `OnsetDetector` analyses in 128 ms frames below 400 Hz.
/// It is apart from the detector so that offline analysis computes it on the
/// level stage's thread, beside the level meter (the detector's thread is the
/// busier one); the samples are the same wherever it runs.
///
/// Plain synchronous code; buffers are allocated in `init`.
public struct DetectorLowBand: ~Copyable {
    /// One input sample in this many is kept.
    public let decimation: Int
    /// The most samples one hop gives (`hopFrames / decimation`, rounded up).
    public let maximumSamplesPerHop: Int
    private var lowPass: DecimatingLowPass
    private let output: UnsafeMutableBufferPointer<Float>
    private var count = 0

    /// The samples the last `process` call gave (valid until the next call).
    public var samples: UnsafeBufferPointer<Float> { UnsafeBufferPointer(rebasing: output[0..<count]) }

    public init(configuration: OnsetDetectorConfiguration) {
        let rate = configuration.sampleRate
        decimation = Self.decimation(sampleRate: rate)
        let lowRate = rate / Double(decimation)
        lowPass = DecimatingLowPass(
            Self.butterworth(cutoff: min(450, lowRate * 0.4), sampleRate: rate), decimation: decimation,
            maximumBlock: configuration.hopFrames)
        maximumSamplesPerHop = (configuration.hopFrames + decimation - 1) / decimation
        output = .allocate(capacity: maximumSamplesPerHop)
        output.initialize(repeating: 0)
    }

    deinit { output.deallocate() }

    /// One input sample in this many is kept at `sampleRate`: about 2 kHz.
    static func decimation(sampleRate: Double) -> Int {
        max(1, Int((sampleRate / 2000).rounded()))
    }

    /// Low-passes one hop (`hopFrames` mono samples) and keeps its decimated samples in `samples`.
    public mutating func process(_ hop: UnsafeBufferPointer<Float>) {
        count = lowPass.process(hop, into: output)
    }

    /// A 4th-order Butterworth low-pass as two biquads (RBJ cookbook).
    private static func butterworth(cutoff: Double, sampleRate: Double) -> (Biquad, Biquad) {
        func section(q: Double) -> Biquad {
            let w0 = 2 * Double.pi * cutoff / sampleRate
            let alpha = sin(w0) / (2 * q)
            let c = cos(w0)
            return Biquad(BiquadCoefficients(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha))
        }
        return (section(q: 0.541_196_1), section(q: 1.306_563))
    }
}
