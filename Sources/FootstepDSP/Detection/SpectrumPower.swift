/// The power of a run of bins of a complex spectrum (`(re, im)` pairs, as
/// `RealFFT` writes them).
extension UnsafeBufferPointer where Element == (Float, Float) {
    /// Σ |X[k]|² over `bins`, plus `initial`, in four interleaved partial sums:
    /// one running sum would make every bin wait for the previous addition.
    @inline(__always)
    func power(of bins: Range<Int>, plus initial: Float = 0) -> Float {
        var partial = SIMD4<Float>(initial, 0, 0, 0)
        var k = bins.lowerBound
        let upper = bins.upperBound
        while k + 4 <= upper {
            let (r0, i0) = self[k], (r1, i1) = self[k + 1]
            let (r2, i2) = self[k + 2], (r3, i3) = self[k + 3]
            let re = SIMD4(r0, r1, r2, r3), im = SIMD4(i0, i1, i2, i3)
            partial += re * re + im * im
            k += 4
        }
        while k < upper {
            let (re, im) = self[k]
            partial[0] += re * re + im * im
            k += 1
        }
        return partial.sum()
    }
}
