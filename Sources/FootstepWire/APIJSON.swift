import Foundation

/// The one JSON dialect of the control socket, used by the server and the
/// client alike.
///
/// - Keys are snake_case, spelled out in each type's `CodingKeys` (no key
///   strategy: `convertFromSnakeCase` would turn `laf_db` into `lafDb`, not
///   `lafDB`, and would rewrite dictionary keys such as `heel_strike`).
/// - Dates are ISO 8601 in UTC with milliseconds (`2025-01-31T22:04:05.123Z`);
///   the decoder also accepts them without fractional seconds.
/// - Output keys are sorted, so responses are stable for scripts and tests.
public enum APIJSON {
    /// A new encoder for request and response bodies.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    /// A new decoder for request and response bodies.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "'\(text)' is not an ISO 8601 date such as 2025-01-31T22:04:05.123Z")
            }
            return date
        }
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    /// `date` as ISO 8601 UTC with milliseconds.
    /// Rounded to the nearest millisecond, as the store keeps times: Foundation's
    /// formatter truncates, and a stored `.123` (a Double just below it) would read `.122`.
    public static func formatDate(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let (seconds, fraction) = Int64(milliseconds).quotientAndRemainder(dividingBy: 1000)
        let whole = seconds - (fraction < 0 ? 1 : 0)
        let text = withoutFraction.format(Date(timeIntervalSince1970: Double(whole)))  // ends in "Z"
        let digits = String(fraction < 0 ? fraction + 1000 : fraction)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Parses ISO 8601 with or without fractional seconds (query parameters use it too).
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? withFraction.parse(text) { return date }
        return try? withoutFraction.parse(text)
    }
}
