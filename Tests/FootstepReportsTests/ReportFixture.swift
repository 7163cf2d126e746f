import FootstepCore
import FootstepReports
import Foundation

/// Generated report inputs with fixed seeds: events over several nights, a level
/// per minute, bouts, notes with characters that need escaping, and synthetic clips.
enum ReportFixture {
    static let zone = TimeZone(identifier: "Europe/London")!
    static let quiet = DailyWindow(start: 23 * 60, end: 7 * 60)
    /// 2026-11-20 18:00 local (UTC in November).
    static let start = ISO8601DateFormatter().date(from: "2026-11-20T18:00:00Z")!
    static let calibration = ReportCalibration(
        offsetDB: 112.4, measuredAt: ISO8601DateFormatter().date(from: "2026-11-19T10:00:00Z")!, method: "94 dB calibrator",
        reference: "class 1 calibrator, serial 1234")

    static var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// `count` events over `days` days from `start`, times rounded to the millisecond
    /// (as the store keeps them), busier at night.
    static func events(count: Int, days: Int, seed: UInt64 = 42) -> [ReportEvent] {
        var generator = SeededRandom(seed: seed)
        return (0..<count).map { index in
            var offset = Double.random(in: 0..<(Double(days) * 86400), using: &generator)
            if Double.random(in: 0..<1, using: &generator) < 0.5 {
                // Move half of them into the night (23:00-03:00 local, i.e. 5-9 h after 18:00).
                offset = (offset / 86400).rounded(.down) * 86400 + Double.random(in: 5 * 3600..<9 * 3600, using: &generator)
            }
            let time = Date(timeIntervalSince1970: ((start.timeIntervalSince1970 + offset) * 1000).rounded() / 1000)
            let isStep = Double.random(in: 0..<1, using: &generator) < 0.8
            let notes = index % 97 == 0 ? "door, then \"thud\" <upstairs> & more\nsecond line" : ""
            var event = ReportEvent(
                id: Int64(index + 1), sessionId: 1, timestamp: time, duration: 0.2, kind: isStep ? .footstep : .other,
                type: isStep ? FootstepType.allCases.randomElement(using: &generator)! : .unknown,
                confidence: (Double.random(in: 0.3..<1, using: &generator) * 1000).rounded() / 1000, intensity: .medium,
                laMax: (Double.random(in: 28..<66, using: &generator) * 100).rounded() / 100, lcMax: 60, sel: 40, notes: notes)
            // Some steps were revised by the bout typer after they were stored.
            if isStep, index % 31 == 0, event.type != .heelStrike { event.revisedFrom = "heel_strike" }
            return event
        }.sorted { $0.timestamp < $1.timestamp }
    }

    /// One level interval per minute over `days` days.
    static func levels(days: Int, seed: UInt64 = 7) -> [ReportLevelInterval] {
        var generator = SeededRandom(seed: seed)
        return (0..<(days * 1440)).map { minute in
            let laeq = Double.random(in: 24..<44, using: &generator)
            return ReportLevelInterval(
                start: start.addingTimeInterval(Double(minute) * 60), laeq: laeq, lceq: laeq + 12, lafMax: laeq + 9, la90: laeq - 5)
        }
    }

    static func bouts(days: Int) -> [ReportBout] {
        (0..<(days * 3)).map { i in
            let begin = start.addingTimeInterval(Double(i) * 8 * 3600 + 600)
            let steps = 4 + i % 9
            return ReportBout(
                start: begin, end: begin.addingTimeInterval(Double(steps) * 0.55), steps: steps, cadence: 1.8 + Double(i % 3) * 0.1,
                dominantType: .heelStrike, kind: i % 4 == 0 ? "running" : "walking")
        }
    }

    /// A decaying 60 Hz thud with a click, 3 s at 16 kHz, for the loudest events.
    static func clip(_ event: ReportEvent) -> ReportAudio? {
        let rate = 16000
        let samples = (0..<(3 * rate)).map { i -> Float in
            let t = Double(i) / Double(rate) - 1
            guard t >= 0 else { return Float(0.001 * sin(Double(i))) }
            return Float(0.5 * exp(-t * 8) * sin(2 * .pi * 60 * t) + 0.1 * exp(-t * 80) * sin(2 * .pi * 1500 * t))
        }
        return ReportAudio(samples: samples, sampleRate: rate, onsetSeconds: 1, encoded: Data("RIFF-not-really".utf8), mimeType: "audio/wav")
    }

    static func scope(days: Int, calibrated: Bool = true) -> ReportScope {
        ReportScope(
            from: start, to: start.addingTimeInterval(Double(days) * 86400), timeZone: zone, quietHours: quiet,
            calibration: calibrated ? calibration : nil)
    }

    static func document(
        events count: Int = 600, days: Int = 3, calibrated: Bool = true, paper: ReportPaper = .a4, rules: [ReportRule] = []
    ) -> ReportDocument {
        ReportDocument(
            events: events(count: count, days: days), levels: levels(days: days), bouts: bouts(days: days),
            scope: scope(days: days, calibrated: calibrated),
            options: ReportOptions(
                title: "Noise <report> & more", address: "Flat 2, 10 Example Road", notes: "Upstairs flat 3.",
                source: "test fixture", generatedAt: start.addingTimeInterval(Double(days) * 86400 + 3600), softwareVersion: "0.1.0",
                paper: paper, rules: rules, maximumListedEvents: 400),
            audio: clip)
    }
}
