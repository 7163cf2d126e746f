import CFFTW
import Synchronization

/// FFTW's planner and plan destruction are not thread-safe (FFTW manual, "Thread safety"):
/// every `fftwf_plan_*` and `fftwf_destroy_plan` call in the process goes through this lock.
private let fftwPlannerLock = Mutex(())

/// A single-precision real-to-complex FFT of fixed power-of-two size (FFTW `r2c`),
/// with its buffers and plan created once in `init`.
///
/// Usage: fill `input`, call `forward()`, read `output` or `powerSpectrum(into:)`.
/// `forward()` leaves `input` unchanged.
///
/// - Note: Not thread-safe; one instance per analysis thread (executing a plan is safe
///   concurrently with other plans, so separate instances may run in parallel).
public final class RealFFT {
    /// Supported sizes.
    public static let sizeRange: ClosedRange<Int> = 2...(1 << 20)

    /// Number of input samples (a power of two).
    public let size: Int
    /// Number of output bins, `size / 2 + 1` (DC … Nyquist).
    public var binCount: Int { size / 2 + 1 }
    /// The `size` input samples; the caller fills them before `forward()`.
    public let input: UnsafeMutableBufferPointer<Float>
    /// The `binCount` complex outputs (re, im) of the last `forward()`; unnormalised
    /// (a sine of amplitude A in bin k gives |X[k]| = A·size/2).
    public let output: UnsafeBufferPointer<(Float, Float)>

    private let outputStorage: UnsafeMutablePointer<fftwf_complex>
    private let plan: OpaquePointer

    /// Creates the buffers and the plan (`FFTW_ESTIMATE`, out of place, input preserved).
    public init(size: Int) throws(DSPError) {
        guard Self.sizeRange.contains(size), size & (size - 1) == 0 else {
            throw .invalidFFTSize(size, allowed: Self.sizeRange)
        }
        guard let rawInput = fftwf_malloc(MemoryLayout<Float>.stride * size) else {
            throw .fftPlanFailed(size: size)
        }
        guard let rawOutput = fftwf_malloc(MemoryLayout<fftwf_complex>.stride * (size / 2 + 1)) else {
            fftwf_free(rawInput)
            throw .fftPlanFailed(size: size)
        }
        let inputPointer = rawInput.bindMemory(to: Float.self, capacity: size)
        inputPointer.initialize(repeating: 0, count: size)
        let outputPointer = rawOutput.bindMemory(to: fftwf_complex.self, capacity: size / 2 + 1)
        outputPointer.initialize(repeating: (0, 0), count: size / 2 + 1)
        // FFTW_ESTIMATE does not touch the arrays while planning; FFTW_PRESERVE_INPUT is
        // the default for out-of-place r2c and is stated explicitly (never FFTW_DESTROY_INPUT).
        let flags = UInt32(FFTW_ESTIMATE) | UInt32(FFTW_PRESERVE_INPUT)
        // The plan leaves the lock as its address (an Int): `withLock` must return a
        // `sending` value, and an OpaquePointer derived from the captured buffers is not one.
        let planAddress = fftwPlannerLock.withLock { _ in
            Int(bitPattern: fftwf_plan_dft_r2c_1d(Int32(size), inputPointer, outputPointer, flags))
        }
        guard let created = OpaquePointer(bitPattern: planAddress) else {
            fftwf_free(rawInput)
            fftwf_free(rawOutput)
            throw .fftPlanFailed(size: size)
        }
        self.size = size
        input = UnsafeMutableBufferPointer(start: inputPointer, count: size)
        outputStorage = outputPointer
        output = UnsafeBufferPointer(start: outputPointer, count: size / 2 + 1)
        plan = created
    }

    deinit {
        let plan = plan
        fftwPlannerLock.withLock { _ in fftwf_destroy_plan(plan) }
        fftwf_free(input.baseAddress)
        fftwf_free(outputStorage)
    }

    /// Transforms `input` into `output`.
    public func forward() {
        fftwf_execute(plan)
    }

    /// Writes |X[k]|² for the `binCount` bins of the last `forward()` into `power`
    /// (`power.count >= binCount`).
    public func powerSpectrum(into power: UnsafeMutableBufferPointer<Float>) {
        precondition(power.count >= binCount, "power buffer needs \(binCount) bins")
        for k in 0..<binCount {
            let (re, im) = outputStorage[k]
            power[k] = re * re + im * im
        }
    }
}
