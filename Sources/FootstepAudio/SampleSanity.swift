/// Keeps impossible samples out of the analysis and the recordings: a sample
/// that is not finite (NaN, ±Inf) or beyond ±`limit` (60 dB over full scale,
/// e.g. 1e38 from a corrupt float file or a misconfigured device) becomes 0
/// and is counted. One such sample would otherwise make every level and the
/// detector's running statistics NaN for the rest of the stream.
///
/// Plain synchronous code, no allocation: it runs on every buffer a source delivers.
public enum SampleSanity {
    /// The largest magnitude kept (linear; full scale is 1).
    public static let limit: Float = 1000

    /// Replaces the impossible samples of `buffer[0..<count]` by 0; returns how many there were.
    @inline(__always)
    public static func sanitize(_ buffer: UnsafeMutableBufferPointer<Float>, count: Int) -> Int {
        var replaced = 0
        for i in 0..<min(count, buffer.count) {
            let x = buffer[i]
            // `!(abs(x) <= limit)` is true for NaN as well as for ±Inf and huge values.
            if !(abs(x) <= limit) {
                buffer[i] = 0
                replaced += 1
            }
        }
        return replaced
    }
}
