import CSoxr

/// Converts a stream of interleaved float audio from one sample rate to
/// another (libsoxr, its default high quality: 20-bit precision, linear
/// phase, flat to 91 % of the lower Nyquist frequency), block by block, with
/// the same channels. Output frame `k` holds the input's instant
/// `k / outputRate` s: libsoxr removes its own delay, so the first frames
/// come out a little later than their input, and ``drain(into:)`` gives the
/// last ones at the end.
///
/// - Note: One thread at a time. ``convert(_:frames:into:)`` does not allocate.
public final class StreamResampler {
    public let inputRate: Int
    public let outputRate: Int
    public let channels: Int
    private var converter: soxr_t?

    /// - Throws: `AudioSourceError.invalidParameter` when a rate is out of
    ///   range or libsoxr refuses the conversion.
    public init(from inputRate: Int, to outputRate: Int, channels: Int) throws(AudioSourceError) {
        guard (1000...768_000).contains(inputRate), (1000...768_000).contains(outputRate), channels > 0 else {
            throw .invalidParameter("cannot convert \(channels)-channel audio from \(inputRate) to \(outputRate) Hz")
        }
        var error: soxr_error_t?
        let converter = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, nil, nil, nil)
        guard error == nil, let converter else {
            if let converter { soxr_delete(converter) }
            let reason = error.map { String(cString: $0) } ?? "unknown error"
            throw .invalidParameter("cannot convert \(inputRate) to \(outputRate) Hz: \(reason)")
        }
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        self.converter = converter
    }

    deinit {
        if let converter { soxr_delete(converter) }
    }

    /// Output frames per input frame.
    public var ratio: Double { Double(outputRate) / Double(inputRate) }

    /// The most output frames `frames` input frames can give in one call (the
    /// converter may also release frames it held back from earlier input).
    public func outputCapacity(forInputFrames frames: Int) -> Int {
        Int((Double(frames) * ratio).rounded(.up)) + 64
    }

    /// Converts up to `frames` frames of `input`, writing at most `output`'s
    /// frames; returns (input frames used, output frames made). Input that does
    /// not fit is left unused: call again with the rest.
    public func convert(
        _ input: UnsafeBufferPointer<Float>, frames: Int, into output: UnsafeMutableBufferPointer<Float>
    ) -> (used: Int, made: Int) {
        guard let converter, let inputBase = input.baseAddress, let outputBase = output.baseAddress else { return (0, 0) }
        var used = 0
        var made = 0
        _ = soxr_process(converter, inputBase, frames, &used, outputBase, output.count / channels, &made)
        return (used, made)
    }

    /// The frames still held at the end of the input; 0 once all are out.
    public func drain(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let converter, let outputBase = output.baseAddress else { return 0 }
        var made = 0
        _ = soxr_process(converter, nil, 0, nil, outputBase, output.count / channels, &made)
        return made
    }
}
