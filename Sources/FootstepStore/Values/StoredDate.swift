import Foundation

/// The text form of times in the store: UTC `yyyy-MM-dd HH:mm:ss.SSS`, the format
/// GRDB uses and SQLite's date functions read.
///
/// Event timestamps are written with this formatter (not `DateFormatter`), rounded to
/// the nearest millisecond, so the hashed text does not depend on a Foundation/ICU
/// version; cursors and range filters are bound with it too, so a time read back from
/// the database compares equal to its stored text.
public enum StoredDate {
    /// `date` rounded to the nearest millisecond, as stored text.
    public static func text(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
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
