/// A second-order IIR section in transposed direct form II with `Double` state.
///
/// Values whose magnitude falls below 1e-30 are flushed to zero so that long
/// silences never leave the state in the (slow) subnormal range.
public struct Biquad: Sendable {
    /// The coefficients in use.
    public let coefficients: BiquadCoefficients
    private var s1: Double = 0
    private var s2: Double = 0

    /// Creates a section at rest.
    public init(_ c: BiquadCoefficients) {
        coefficients = c
    }

    /// Filters one sample.
    @inline(__always)
    public mutating func process(_ x: Float) -> Float {
        Float(processDouble(Double(x)))
    }

    /// Filters one `Double` sample (no rounding to `Float` in between cascaded sections).
    @inline(__always)
    public mutating func processDouble(_ x: Double) -> Double {
        let c = coefficients
        let y = c.b0 * x + s1
        s1 = c.b1 * x - c.a1 * y + s2
        s2 = c.b2 * x - c.a2 * y
        return y
    }

    /// Filters `buffer` in place.
    public mutating func process(_ buffer: UnsafeMutableBufferPointer<Float>) {
        let c = coefficients
        var z1 = s1, z2 = s2
        for i in buffer.indices {
            let x = Double(buffer[i])
            let y = c.b0 * x + z1
            z1 = c.b1 * x - c.a1 * y + z2
            z2 = c.b2 * x - c.a2 * y
            buffer[i] = Float(y)
        }
        s1 = z1
        s2 = z2
        flushSubnormals()
    }

    /// Filters every `stride`-th sample of `buffer`, starting at `offset`, in place
    /// (one channel of an interleaved buffer).
    public mutating func process(_ buffer: UnsafeMutableBufferPointer<Float>, offset: Int, stride: Int) {
        let c = coefficients
        var z1 = s1, z2 = s2
        var i = offset
        while i < buffer.count {
            let x = Double(buffer[i])
            let y = c.b0 * x + z1
            z1 = c.b1 * x - c.a1 * y + z2
            z2 = c.b2 * x - c.a2 * y
            buffer[i] = Float(y)
            i += stride
        }
        s1 = z1
        s2 = z2
        flushSubnormals()
    }

    /// Returns the section to rest (zero state).
    public mutating func reset() {
        s1 = 0
        s2 = 0
    }

    /// True while the state is finite (a NaN or infinity in the input poisons an IIR state).
    public var isFinite: Bool { s1.isFinite && s2.isFinite }

    @inline(__always)
    private mutating func flushSubnormals() {
        if abs(s1) < 1e-30 { s1 = 0 }
        if abs(s2) < 1e-30 { s2 = 0 }
    }
}
