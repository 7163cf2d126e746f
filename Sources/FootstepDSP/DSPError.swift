/// Errors of the FootstepDSP module. Indices are 0-based in the cases and shown
/// 1-based in `description`.
public enum DSPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An EQ band value is outside its allowed range (or not finite).
    case invalidEQBand(channel: Int, band: Int, parameter: EQBand.Parameter, value: Double, allowed: ClosedRange<Double>)
    /// A channel has more EQ bands than `ParametricEQ.maximumBands`.
    case tooManyEQBands(channel: Int, count: Int, maximum: Int)
    /// More per-channel EQ band lists than `ParametricEQ.maximumChannels`.
    case tooManyEQChannels(count: Int, maximum: Int)
    /// The sample rate given to the EQ is not usable.
    case invalidSampleRate(Double)
    /// An FFT size that is not a power of two in the supported range.
    case invalidFFTSize(Int, allowed: ClosedRange<Int>)
    /// FFTW could not create a plan (out of memory).
    case fftPlanFailed(size: Int)
    /// A level meter setting is out of range (`parameter` is the configuration key).
    case invalidLevelMeterConfiguration(parameter: String, value: Double, allowed: ClosedRange<Double>)
    /// Any other invalid setting; the message names it.
    case invalidParameter(String)

    public var description: String {
        switch self {
        case let .invalidEQBand(channel, band, parameter, value, allowed):
            return "EQ channel \(channel + 1), band \(band + 1): \(parameter.rawValue) \(value) is out of range "
                + "\(allowed.lowerBound)...\(allowed.upperBound)"
        case let .tooManyEQBands(channel, count, maximum):
            return "EQ channel \(channel + 1) has \(count) bands; at most \(maximum) are allowed"
        case let .tooManyEQChannels(count, maximum):
            return "EQ has band lists for \(count) channels; at most \(maximum) are allowed"
        case let .invalidSampleRate(rate):
            return "sample rate \(rate) Hz is not usable (must be positive and finite)"
        case let .invalidFFTSize(size, allowed):
            return "FFT size \(size) is not a power of two in \(allowed.lowerBound)...\(allowed.upperBound)"
        case let .fftPlanFailed(size):
            return "FFTW could not create a plan for a \(size)-point real FFT"
        case let .invalidLevelMeterConfiguration(parameter, value, allowed):
            return "level meter \(parameter) \(value) is out of range \(allowed.lowerBound)...\(allowed.upperBound)"
        case let .invalidParameter(message):
            return message
        }
    }
}
