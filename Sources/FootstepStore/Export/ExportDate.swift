import Foundation

/// Times in exports: ISO-8601 UTC with the store's millisecond precision,
/// `2025-03-01T22:14:05.123Z`.
///
/// The conversion is textual, both ways, so it is exact: the store's text
/// `2025-03-01 22:14:05.123` (see ``StoredDate``) becomes `2025-03-01T22:14:05.123Z`
/// and back, character for character. Hashed event timestamps therefore survive an
/// export and import unchanged, with no floating-point rounding in between. Text that
/// is not in the store's format is passed through unchanged (and will not verify).
public enum ExportDate {
    /// The ISO-8601 form of a stored time text.
    public static func iso(fromStored stored: String) -> String {
        let bytes = Array(stored.utf8)
        guard isStoredForm(bytes) else { return stored }
        var out = bytes
        out[10] = UInt8(ascii: "T")
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The stored text of an ISO-8601 time written by ``iso(fromStored:)``.
    public static func stored(fromISO iso: String) -> String {
        var bytes = Array(iso.utf8)
        guard bytes.count >= 20, bytes[10] == UInt8(ascii: "T"), bytes.last == UInt8(ascii: "Z") else { return iso }
        bytes.removeLast()
        bytes[10] = UInt8(ascii: " ")
        guard isStoredForm(bytes) else { return iso }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The ISO-8601 text of a date, rounded to the nearest millisecond.
    public static func iso(_ date: Date) -> String {
        iso(fromStored: StoredDate.text(date))
    }

    /// The date of an ISO text written by this type, or nil.
    public static func date(fromISO iso: String) -> Date? {
        let stored = stored(fromISO: iso)
        let bytes = Array(stored.utf8)
        guard isStoredForm(bytes) else { return nil }
        func number(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + Int(bytes[$1] - 48) } }
        var components = DateComponents()
        components.year = number(0..<4)
        components.month = number(5..<7)
        components.day = number(8..<10)
        components.hour = number(11..<13)
        components.minute = number(14..<16)
        components.second = number(17..<19)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let whole = calendar.date(from: components) else { return nil }
        let fraction = bytes.count > 20 ? Double("0." + String(decoding: bytes[20...], as: UTF8.self)) ?? 0 : 0
        return whole.addingTimeInterval(fraction)
    }

    /// `yyyy-MM-dd HH:mm:ss` optionally followed by `.` and at least one digit.
    static func isStoredForm(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 19 else { return false }
        let separators: [Int: UInt8] = [4: 45, 7: 45, 10: 32, 13: 58, 16: 58]
        for index in 0..<19 {
            if let separator = separators[index] {
                guard bytes[index] == separator else { return false }
            } else {
                guard (48...57).contains(bytes[index]) else { return false }
            }
        }
        if bytes.count == 19 { return true }
        guard bytes.count > 20, bytes[19] == 46 else { return false }
        return bytes[20...].allSatisfy { (48...57).contains($0) }
    }
}
