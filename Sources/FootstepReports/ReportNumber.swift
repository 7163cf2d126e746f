import Foundation

/// Fixed-point number text without `String(format:)`, which costs microseconds a call
/// on Linux and is called about ten times per event in a 100,000-event CSV or per
/// coordinate in the SVG charts.
///
/// Rounds half to even at the last digit (as `printf` does for values that are exact
/// halves in binary); non-finite values give `nan`, `inf` or `-inf`.
enum ReportNumber {
    /// `value` with `decimals` (0…6) digits after the point, e.g. `fixed(-3.14159, 2)` = `-3.14`.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        var text = ""
        append(value, decimals, to: &text)
        return text
    }

    /// Appends `fixed(value, decimals)` to `text`.
    static func append(_ value: Double, _ decimals: Int, to text: inout String) {
        guard value.isFinite else {
            text += value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf")
            return
        }
        let scale = powersOfTen[min(max(decimals, 0), 6)]
        let scaled = (abs(value) * Double(scale)).rounded(.toNearestOrEven)
        guard scaled < 9e18 else {
            text += String(format: "%.\(decimals)f", value)
            return
        }
        let units = UInt64(scaled)
        if value < 0 && units > 0 { text += "-" }
        text += String(units / scale)
        guard decimals > 0 else { return }
        text += "."
        appendPadded(units % scale, width: decimals, to: &text)
    }

    /// Appends `value` (non-negative) with leading zeros to `width` digits.
    static func appendPadded<Integer: BinaryInteger>(_ value: Integer, width: Int, to text: inout String) {
        let digits = String(value)
        if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
        text += digits
    }

    /// `value` with leading zeros to `width` digits.
    static func padded<Integer: BinaryInteger>(_ value: Integer, width: Int) -> String {
        var text = ""
        appendPadded(value, width: width, to: &text)
        return text
    }

    private static let powersOfTen: [UInt64] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000]
}
