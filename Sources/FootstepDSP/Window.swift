import Foundation

/// Analysis windows.
public enum Window {
    /// The periodic Hann window of length `n`: w[k] = 0.5 − 0.5·cos(2πk/n)
    /// (the DFT-even form used for overlapping STFT frames; `n == 1` gives [1]).
    public static func hann(_ n: Int) -> [Float] {
        precondition(n >= 0, "window length must not be negative")
        if n == 1 { return [1] }
        return (0..<n).map { k in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(k) / Double(n))) }
    }
}
