import Foundation
import FootstepStore
import GRDB
import Testing

/// Store dates as text without DateFormatter/Calendar: the same text and
/// instants as GRDB's own (ICU-based) coding.
@Suite struct StoredDateTests {
    /// Exact binary fractions of a second, so GRDB's truncation and our rounding agree.
    static let instants: [Double] = [
        0, 1_700_000_000.125, 1_795_000_000.875, -1.5, -2_208_988_800.375,  // 1899-12-31 23:59:59.625
        951_782_400.5,  // 2000-02-29
        4_102_444_799.25,  // 2099-12-31 23:59:59.250
    ]

    @Test(arguments: instants)
    func textAndBackAgreeWithGRDB(seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let text = StoredDate.text(date)
        // GRDB writes the same text (it truncates to the millisecond; these instants are exact).
        #expect(String.fromDatabaseValue(date.databaseValue) == text)
        let parsed = try #require(StoredDate.date(text))
        #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.0005, "\(text)")
        #expect(Date.fromDatabaseValue(text.databaseValue) == parsed)
    }

    @Test func shorterAndISOFormsAreRead() {
        #expect(StoredDate.date("2026-11-22 08:30:00") == Date(timeIntervalSince1970: 1_795_336_200))
        #expect(StoredDate.date("2026-11-22T08:30:00.250") == Date(timeIntervalSince1970: 1_795_336_200.25))
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-13-01 00:00:00", "2026-11-22 24:00:00", "2026-11-22 08:30:00.25",
        "2026-11-22 08:30:00.250Z", "2026/11/22 08:30:00", "２026-11-22 08:30:00", "2026-11-22 08:30:0x",
    ])
    func otherTextIsNotADate(text: String) {
        #expect(StoredDate.date(text) == nil)
    }
}

/// Dates no request should produce still give text, not a trap.
@Suite struct StoredDateExtremeTests {
    @Test func datesBeyondTheYearsTextCanHoldAreClampedNotATrap() {
        #expect(StoredDate.text(Date(timeIntervalSince1970: 9_223_372_036_854_775.807)) == "9999-12-31 23:59:59.999")
        #expect(StoredDate.text(Date(timeIntervalSince1970: -1e18)) == "0001-01-01 00:00:00.000")
        #expect(StoredDate.text(Date(timeIntervalSince1970: .infinity)) == "9999-12-31 23:59:59.999")
        #expect(StoredDate.text(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000")
    }
}
