/// Conversion of captured samples to 32-bit float in [-1, 1].
enum SampleConversion {
    /// Converts `count` samples at `bytes` into `output` (no allocation); returns
    /// how many float samples were impossible and replaced by 0 (`SampleSanity`).
    @discardableResult
    static func toFloat(
        _ bytes: UnsafeRawPointer, format: CaptureSampleFormat, count: Int, into output: UnsafeMutableBufferPointer<Float>
    ) -> Int {
        switch format {
        case .s16LE:
            let samples = bytes.assumingMemoryBound(to: Int16.self)
            for i in 0..<count {
                output[i] = Float(Int16(littleEndian: samples[i])) * (1.0 / 32768.0)
            }
            return 0
        case .floatLE:
            let samples = bytes.assumingMemoryBound(to: Float.self)
            for i in 0..<count {
                output[i] = samples[i]
            }
            return SampleSanity.sanitize(output, count: count)
        }
    }
}
