/// The detector's anti-alias low-pass and decimator: keeps one sample in
/// `decimation` of the low-passed input.
///
/// The low-pass is specified as an IIR cascade (a 4th-order Butterworth) but run
/// as an FIR: its impulse response, truncated once the remaining tail can no longer
/// change an output by more than 1e-4 of the input's full scale (−80 dB; the
/// magnitude response then differs from the IIR's by < 0.01 dB below 1 kHz). An IIR
/// has to run at every input sample; the FIR is evaluated only at the kept instants,
/// which costs taps / decimation multiply-adds per input sample (≈ 18 at 16 kHz) in
/// a vectorised dot product instead of two latency-bound biquads per sample.
///
/// Plain synchronous code; buffers are allocated in `init`.
struct DecimatingLowPass: ~Copyable {
    let decimation: Int
    /// Number of taps, a multiple of 16 (zero-padded at the old end).
    let tapCount: Int
    /// The impulse response in reverse (oldest tap first), so that an output is the
    /// dot product of `reversedTaps` with the `tapCount` most recent inputs in order.
    private let reversedTaps: UnsafeMutableBufferPointer<Float>
    /// The last `tapCount − 1` inputs followed by the current block.
    private let buffer: UnsafeMutableBufferPointer<Float>
    private let maximumBlock: Int
    /// Inputs since the last kept sample.
    private var phase = 0

    /// - Parameters:
    ///   - sections: the low-pass as an IIR cascade (run once here for its impulse response).
    ///   - maximumBlock: the longest block `process` gets.
    init(_ sections: (Biquad, Biquad), decimation: Int, maximumBlock: Int) {
        precondition(decimation >= 1 && maximumBlock >= 1)
        self.decimation = decimation
        self.maximumBlock = maximumBlock
        // Impulse response of the cascade, in Double.
        var (first, second) = sections
        var response: [Double] = []
        var tail = Double.infinity
        var x = 1.0
        while response.count < 1 << 16 {
            response.append(second.processDouble(first.processDouble(x)))
            x = 0
            // Stop once the last 64 taps are all tiny (the response is a decaying ringing).
            if response.count >= 64 {
                tail = response.suffix(64).reduce(0) { $0 + abs($1) }
                if tail < 1e-6 { break }
            }
        }
        // Drop the tail whose absolute sum is below 1e-4 (bounds the output error for |x| ≤ 1).
        var length = response.count
        var dropped = 0.0
        while length > 1, dropped + abs(response[length - 1]) < 1e-4 {
            dropped += abs(response[length - 1])
            length -= 1
        }
        let width = 2 * SIMD8<Float>.scalarCount
        tapCount = (length + width - 1) / width * width
        reversedTaps = .allocate(capacity: tapCount)
        reversedTaps.initialize(repeating: 0)
        for k in 0..<length {
            reversedTaps[tapCount - 1 - k] = Float(response[k])
        }
        buffer = .allocate(capacity: tapCount - 1 + maximumBlock)
        buffer.initialize(repeating: 0)
    }

    deinit {
        reversedTaps.deallocate()
        buffer.deallocate()
    }

    /// Filters `block` and writes every `decimation`-th output to `output`
    /// (room for `block.count / decimation + 1`); returns how many.
    mutating func process(_ block: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>) -> Int {
        precondition(block.count <= maximumBlock, "block larger than maximumBlock")
        let history = tapCount - 1
        let base = buffer.baseAddress!
        (base + history).update(from: block.baseAddress!, count: block.count)
        // The kept inputs are those at which `phase` reaches `decimation`.
        var i = decimation - phase - 1
        var written = 0
        while i < block.count {
            // Output at block index i: taps against inputs [i + 1 − tapCount, i].
            output[written] = dot(base + i)
            written += 1
            i += decimation
        }
        phase = (phase + block.count) % decimation
        // Keep the newest `tapCount − 1` inputs for the next block.
        base.update(from: base + block.count, count: history)
        return written
    }

    /// Σ reversedTaps[j] · x[j] over `tapCount` samples, sixteen at a time into two
    /// independent accumulators (one would make every step wait for the previous add).
    @inline(__always)
    private func dot(_ x: UnsafeMutablePointer<Float>) -> Float {
        let raw = UnsafeRawPointer(x)
        let taps = UnsafeRawPointer(reversedTaps.baseAddress!)
        let stride = MemoryLayout<SIMD8<Float>>.size
        var sum0 = SIMD8<Float>()
        var sum1 = SIMD8<Float>()
        var offset = 0
        for _ in 0..<(tapCount / 16) {
            sum0 += raw.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                * taps.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            sum1 += raw.loadUnaligned(fromByteOffset: offset + stride, as: SIMD8<Float>.self)
                * taps.loadUnaligned(fromByteOffset: offset + stride, as: SIMD8<Float>.self)
            offset += 2 * stride
        }
        return (sum0 + sum1).sum()
    }
}
