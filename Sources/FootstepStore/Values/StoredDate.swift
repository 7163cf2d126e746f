import Foundation

/// The text form of times in the store: UTC `yyyy-MM-dd HH:mm:ss.SSS`, the format
/// GRDB uses and SQLite's date functions read.
///
/// Event timestamps are written with this formatter (not `DateFormatter`), rounded to
/// the nearest millisecond, so the hashed text does not depend on a Foundation/ICU
/// version; cursors and range filters are bound with it too, so a time read back from
/// the database compares equal to its stored text.
public enum StoredDate {
    /// The milliseconds since 1970 that stored text can hold: years 0001 through 9999.
    static let representable: ClosedRange<Double> = -62_135_596_800_000...253_402_300_799_999

    /// `date` rounded to the nearest millisecond, as stored text. A date
    /// outside years 0001–9999 (or not finite) is clamped to the nearest end of
    /// that range rather than trapping: callers bound what they accept (a
    /// request's cursor, a range filter), this keeps any that does not from
    /// bringing the process down.
    public static func text(_ date: Date) -> String {
        let raw = (date.timeIntervalSince1970 * 1000).rounded()
        let ms = Int64(raw.isNaN ? 0 : min(max(raw, representable.lowerBound), representable.upperBound))
        let msPerDay: Int64 = 86_400_000
        var days = ms / msPerDay
        var msOfDay = ms % msPerDay
        if msOfDay < 0 {
            msOfDay += msPerDay
            days -= 1
        }
        let (year, month, day) = civilDate(daysSince1970: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let milli = msOfDay % 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + " "
            + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + "." + pad(milli, 3)
    }

    /// The date of stored text `yyyy-MM-dd HH:mm:ss[.SSS]` (UTC; a `T` may
    /// separate date and time), or nil when the text is not in that form.
    /// No `DateFormatter` or `Calendar`: reading rows touches no ICU data.
    public static func date(_ text: String) -> Date? {
        var utf8 = text.utf8.makeIterator()
        func number(_ digits: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<digits {
                guard let c = utf8.next(), (48...57).contains(c) else { return nil }
                value = value * 10 + Int64(c - 48)
            }
            return value
        }
        func separator(_ allowed: UInt8...) -> Bool { utf8.next().map(allowed.contains) ?? false }
        guard let year = number(4), separator(45), let month = number(2), separator(45), let day = number(2),
            separator(32, 84), let hour = number(2), separator(58), let minute = number(2), separator(58),
            let second = number(2), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var milliseconds: Int64 = 0
        switch utf8.next() {
        case nil: break
        case 46:
            guard let ms = number(3), utf8.next() == nil else { return nil }
            milliseconds = ms
        default: return nil
        }
        let days = daysSince1970(year: year, month: month, day: day)
        let ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milliseconds
        return Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    /// Day count of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    private static func daysSince1970(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Proleptic Gregorian date of a day count (H. Hinnant's `civil_from_days`).
    private static func civilDate(daysSince1970 z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
