import Foundation

/// Fast local wall-clock arithmetic for one time zone over a range of dates.
///
/// `Calendar` calls cost microseconds each on Linux, and a month of a busy
/// store has 100,000 events, so the statistics read the local hour, minute and
/// day from the UTC offset instead, which changes only at daylight-saving
/// transitions (found once for the range).
struct LocalClock: Sendable {
    let timeZone: TimeZone
    /// (transition instant, offset in seconds from then on), ascending.
    private let transitions: [(start: Double, offset: Int)]
    /// The range the transitions are known for (seconds since 1970).
    private let known: ClosedRange<Double>

    init(timeZone: TimeZone, from: Date = Date(timeIntervalSince1970: 0), to: Date = Date(timeIntervalSince1970: 0)) {
        self.timeZone = timeZone
        var list: [(Double, Int)] = [(-Double.infinity, timeZone.secondsFromGMT(for: from.addingTimeInterval(-86_400)))]
        var cursor = from.addingTimeInterval(-86_400)
        let end = to.addingTimeInterval(86_400)
        while let next = timeZone.nextDaylightSavingTimeTransition(after: cursor), next < end {
            list.append((next.timeIntervalSince1970, timeZone.secondsFromGMT(for: next)))
            cursor = next
        }
        transitions = list
        known = from.addingTimeInterval(-86_400).timeIntervalSince1970...end.timeIntervalSince1970
    }

    /// Seconds from UTC at `date`.
    func offset(_ date: Date) -> Int {
        let t = date.timeIntervalSince1970
        guard known.contains(t) else { return timeZone.secondsFromGMT(for: date) }
        if transitions.count == 1 { return transitions[0].offset }
        var result = transitions[0].offset
        for transition in transitions where transition.start <= t { result = transition.offset }
        return result
    }

    /// Local seconds since 1970-01-01 00:00 local.
    func localSeconds(_ date: Date) -> Double { date.timeIntervalSince1970 + Double(offset(date)) }

    /// Local day number (days since 1970-01-01 local).
    func dayNumber(_ date: Date) -> Int { Int((localSeconds(date) / 86_400).rounded(.down)) }

    /// Local hour of day, 0…23.
    func hour(_ date: Date) -> Int { minuteOfDay(date) / 60 }

    /// Local minutes after midnight, 0…1439.
    func minuteOfDay(_ date: Date) -> Int {
        let seconds = localSeconds(date)
        let ofDay = seconds - (seconds / 86_400).rounded(.down) * 86_400
        return min(1439, Int(ofDay / 60))
    }

    /// Local `yyyy-MM-dd` of `date`.
    func dayKey(_ date: Date) -> String { Self.dayKey(dayNumber: dayNumber(date)) }

    /// `yyyy-MM-dd` of a local day number.
    static func dayKey(dayNumber: Int) -> String {
        let (year, month, day) = civil(dayNumber)
        var text = ""
        text.reserveCapacity(10)
        ReportNumber.appendPadded(year, width: 4, to: &text)
        text += "-"
        ReportNumber.appendPadded(month, width: 2, to: &text)
        text += "-"
        ReportNumber.appendPadded(day, width: 2, to: &text)
        return text
    }

    /// The instant of local midnight starting day `dayNumber`, plus `minutes`.
    func instant(dayNumber: Int, minutes: Int = 0) -> Date {
        let local = Double(dayNumber) * 86_400 + Double(minutes) * 60
        // Two passes settle the offset across a transition.
        var guess = Date(timeIntervalSince1970: local - Double(offset(Date(timeIntervalSince1970: local))))
        guess = Date(timeIntervalSince1970: local - Double(offset(guess)))
        return guess
    }

    /// Start of the local clock hour holding `date`.
    func hourStart(_ date: Date) -> Date {
        let seconds = localSeconds(date)
        let local = (seconds / 3600).rounded(.down) * 3600
        return Date(timeIntervalSince1970: local - Double(offset(date)))
    }

    /// Local `HH:mm:ss` (with `.SSS` when `fraction`; times are rounded to the millisecond first).
    func time(_ date: Date, fraction: Bool = false) -> String {
        let milliseconds = Int64((localSeconds(date) * 1000).rounded())
        var ofDay = milliseconds % 86_400_000
        if ofDay < 0 { ofDay += 86_400_000 }
        let whole = Int(ofDay / 1000)
        var text = ""
        text.reserveCapacity(12)
        ReportNumber.appendPadded(whole / 3600, width: 2, to: &text)
        text += ":"
        ReportNumber.appendPadded(whole / 60 % 60, width: 2, to: &text)
        text += ":"
        ReportNumber.appendPadded(whole % 60, width: 2, to: &text)
        if fraction {
            text += "."
            ReportNumber.appendPadded(ofDay % 1000, width: 3, to: &text)
        }
        return text
    }

    /// Local `yyyy-MM-dd HH:mm:ss`.
    func dateTime(_ date: Date, fraction: Bool = false) -> String { dayKey(date) + " " + time(date, fraction: fraction) }

    /// ISO 8601 with the local offset, e.g. `2026-11-20T23:14:05.120+00:00`.
    func iso8601(_ date: Date) -> String {
        let offset = offset(date)
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return dayKey(date) + "T" + time(date, fraction: true) + sign + ReportNumber.padded(magnitude / 3600, width: 2) + ":"
            + ReportNumber.padded(magnitude / 60 % 60, width: 2)
    }

    /// Proleptic Gregorian (year, month, day) of a day count since 1970-01-01.
    private static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
