import FootstepCore
@testable import FootstepReports
import Foundation
import Testing

/// Coverage: nights without audio say "not recorded"; gaps and interruptions are listed.
@Suite("Report coverage")
struct ReportCoverageTests {
    /// Three nights (23:00-07:00 local); a session covers night 1 with a 90 s gap and is
    /// interrupted at 02:00 of night 2; nothing covers night 3.
    static func document() -> ReportDocument {
        let start = ReportFixture.start  // 2026-11-20 18:00 local
        let coverage = ReportCoverage(
            sessions: [
                ReportCoverage.Session(id: 1, title: "one", start: start, end: start.addingTimeInterval(32 * 3600), status: "interrupted"),
            ],
            gaps: [
                ReportCoverage.Gap(sessionId: 1, start: start.addingTimeInterval(6 * 3600), end: start.addingTimeInterval(6 * 3600 + 90), reason: "capture device lost"),
            ])
        let integrity = ReportIntegrity(
            headHash: String(repeating: "ab", count: 32), headEventId: 600, checkedEvents: 600, intact: true, problems: 0,
            verifiedAt: start.addingTimeInterval(3 * 86400), command: "footstepctl verify --database /var/lib/footstepd/footstepd.db")
        let events = ReportFixture.events(count: 300, days: 1)
        let day = 86_400.0
        let equipment = ReportEquipment(
            devices: [ReportEquipment.Device(name: "alsa:plughw:CARD=Mic,DEV=0", sampleRate: 16000, channels: 1, sessions: 1)],
            microphone: "Dayton UMM-6, serial 123-4567", placement: "bedroom, 1.2 m above the floor, 1 m from the wall",
            calibrations: [
                ReportCalibration(offsetDB: 100, measuredAt: start.addingTimeInterval(-30 * day), method: "configuration file", isFromConfiguration: true),
                ReportCalibration(offsetDB: 112.0, measuredAt: start.addingTimeInterval(-20 * day), method: "94 dB calibrator at 1 kHz", reference: "class 1 calibrator"),
                ReportCalibration(offsetDB: 112.4, measuredAt: start.addingTimeInterval(-1 * day), method: "94 dB calibrator at 1 kHz", reference: "class 1 calibrator"),
            ])
        return ReportDocument(
            events: events, levels: ReportFixture.levels(days: 1), scope: ReportFixture.scope(days: 3),
            options: ReportOptions(address: "Flat 2"), coverage: coverage, integrity: integrity, equipment: equipment)
    }

    @Test func nightsWithoutAudioAreNotRecordedAndTheOutagesAreListed() throws {
        let document = Self.document()
        let nights = document.statistics.nights
        #expect(nights.map(\.date) == ["2026-11-20", "2026-11-21", "2026-11-22"])
        #expect(abs((nights[0].recordedSeconds ?? 0) - (8 * 3600 - 90)) < 0.01)
        #expect(abs((nights[1].recordedSeconds ?? 0) - 3 * 3600) < 0.01)
        #expect(nights[2].recordedSeconds == 0)
        #expect(nights.map(\.notRecorded) == [false, false, true])
        #expect(document.statistics.recordedNights == 2)
        // The night without audio says so in the Recorded column, and nothing else stands in its row.
        let table = document.nightTable
        let recorded = try #require(table.columns.firstIndex { $0.title == "Recorded" })
        #expect(table.rows[2][recorded] == "not recorded")
        #expect(table.rows[2].filter { $0 == "not recorded" }.count == 1)
        #expect(!table.rows[2].contains { $0.hasPrefix("0 s") })
        #expect(table.rows[2].count == table.columns.count)

        let html = HTMLReport(document: document).render()
        #expect(html.contains("not recorded"))
        #expect(html.contains("Recorded 10 h 58 min of the 24 h of quiet hours in the period (46 %); 1 night not recorded at all"))
        #expect(html.contains("1 gap without audio inside sessions (1 min 30 s in all)"))
        #expect(html.contains("1 session was interrupted"))
        #expect(html.contains("session 1: capture device lost"))
        #expect(html.contains("session 1 interrupted (footstepd stopped without closing it)"))
        #expect(html.contains(String(repeating: "ab", count: 32)))
        #expect(html.contains("footstepctl verify --database /var/lib/footstepd/footstepd.db"))

        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONReport(document: document).render()) as? [String: Any])
        let coverage = try #require(json["coverage"] as? [String: Any])
        #expect(coverage["nightsNotRecorded"] as? [String] == ["2026-11-22"])
        #expect(abs((coverage["recordedQuietHoursSeconds"] as? Double ?? 0) - (11 * 3600 - 90)) < 0.01)
        let jsonNights = try #require(json["nights"] as? [[String: Any]])
        #expect(jsonNights.map { $0["notRecorded"] as? Bool } == [false, false, true])
        #expect((json["integrity"] as? [String: Any])?["headEventId"] as? Int == 600)
    }

    @Test func theTimelineShadesTheTimeNotRecorded() throws {
        let document = Self.document()
        let coverage = try #require(document.coverage)
        let nights = document.statistics.nights
        let hour = 3600.0
        // Night 1: only the 90 s gap; night 2: from the interruption (02:00) to its end; night 3: all of it.
        let first = coverage.unrecordedSpans(from: nights[0].start, to: nights[0].end)
        #expect(first.map { $0.start.timeIntervalSince(nights[0].start) } == [1 * hour])
        #expect(first.map { $0.end.timeIntervalSince($0.start) } == [90])
        let second = coverage.unrecordedSpans(from: nights[1].start, to: nights[1].end)
        #expect(second.map { $0.start.timeIntervalSince(nights[1].start) } == [3 * hour])
        #expect(second.map { $0.end } == [nights[1].end])
        let third = coverage.unrecordedSpans(from: nights[2].start, to: nights[2].end)
        #expect(third.count == 1 && third[0].start == nights[2].start && third[0].end == nights[2].end)
        // Recorded and unrecorded time make up the night.
        for night in nights {
            let missing = coverage.unrecordedSpans(from: night.start, to: night.end)
                .reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
            #expect(abs(missing + (night.recordedSeconds ?? 0) - night.end.timeIntervalSince(night.start)) < 0.001)
        }

        // The first night's timeline (the only one with data) marks its gap.
        let html = HTMLReport(document: document).render()
        #expect(html.contains("not recorded 00:00:00–00:01:30"), "the gap is not shaded on the timeline")
        #expect(html.contains(ReportColour.unrecorded.hex))
    }

    @Test func streamedJSONWithCoverageAndIntegrityIsWhatJSONEncoderWrites() throws {
        let document = Self.document()
        let streamed = JSONReport(document: document).render()
        let encoded = try ReportJSON.encoder.encode(ReportJSON(document))
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: encoded, as: UTF8.self))
    }

    @Test func theEquipmentPageListsDeviceMicrophoneCalibrationsDriftAndNoiseFloor() throws {
        let html = HTMLReport(document: Self.document()).render()
        #expect(html.contains("<h2>Equipment and calibration</h2>"))
        #expect(html.contains("alsa:plughw:CARD=Mic,DEV=0, 16000 Hz, 1 channel (1 session)"))
        #expect(html.contains("Dayton UMM-6, serial 123-4567"))
        #expect(html.contains("bedroom, 1.2 m above the floor"))
        #expect(html.contains("+100.0 dB from the configuration file, no reference measurement"))
        #expect(html.contains("+112.4 dB; method: 94 dB calibrator at 1 kHz; reference: class 1 calibrator"))
        #expect(html.contains("+0.4 dB since the previous measurement"))
        #expect(html.contains("lowest LA90 of each night: night of 2026-11-20: "))
        // The fixture's quietest minute is far below every limit: no warning.
        #expect(!html.contains("is within 6 dB of the limit"))
    }

    /// A calibrated day whose every minute has LA90 `la90` (LAeq 2.5 dB above it).
    static func floorDocument(la90: Double) -> ReportDocument {
        let start = ReportFixture.start
        let levels = (0..<(24 * 60)).map { minute in
            ReportLevelInterval(
                start: start.addingTimeInterval(Double(minute) * 60), laeq: la90 + 2.5, lceq: la90 + 14.5,
                lafMax: la90 + 7.5, la90: la90)
        }
        return ReportDocument(
            events: [], levels: levels, scope: ReportFixture.scope(days: 1), options: ReportOptions(),
            equipment: ReportEquipment(devices: []))
    }

    @Test func aNoiseFloorNearARulesLimitIsPointedOut() throws {
        let document = Self.floorDocument(la90: 30.5)
        let warnings = document.noiseFloorWarnings
        // The Korean 1-minute rule's night limit is 34 dB(A): 30.5 is within 6 dB of it.
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("LA90 30.5 dB(A)) is within 6 dB of the limit of \"Korean inter-floor standard, 1-minute LAeq\" (34 dB(A))") == true)
        let json = try #require(try JSONSerialization.jsonObject(with: JSONReport(document: document).render()) as? [String: Any])
        #expect(((json["equipment"] as? [String: Any])?["warnings"] as? [String])?.count == 1)
    }

    @Test func aNoiseFloorAboveARulesLimitSaysByHowMuchNotWithin6dB() throws {
        let document = Self.floorDocument(la90: 45)
        let korean = try #require(document.noiseFloorWarnings.first { $0.contains("Korean inter-floor standard, 1-minute LAeq") })
        // Its night limit is 34 dB(A): a floor of 45 is 11 dB above it, not "within 6 dB".
        #expect(korean.contains("LA90 45.0 dB(A)) is 11.0 dB above the limit of"))
        #expect(!korean.contains("within 6 dB"))
    }

    @Test func theLoudestEventsAreDistinctIncidentsNotTheRapsOfOneKnock() throws {
        let start = ReportFixture.start
        // Two knocks of four raps 0.2 s apart (the loudest events of the night), and eight quieter lone stomps.
        var events: [ReportEvent] = []
        for (knock, at) in [3600.0, 7200.0].enumerated() {
            for rap in 0..<4 {
                events.append(ReportEvent(
                    id: Int64(10 * knock + rap), timestamp: start.addingTimeInterval(at + 0.2 * Double(rap)), kind: .other,
                    type: .unknown, confidence: 0.9, laMax: 70 - Double(rap)))
            }
        }
        for stomp in 0..<8 {
            events.append(ReportEvent(
                id: Int64(100 + stomp), timestamp: start.addingTimeInterval(10_000 + 60 * Double(stomp)), kind: .footstep,
                type: .stomping, confidence: 0.9, laMax: 60 - Double(stomp)))
        }
        let document = ReportDocument(
            events: events, levels: [], scope: ReportFixture.scope(days: 1), options: ReportOptions(loudestCount: 5))
        // Each knock once (its loudest rap), then the loudest stomps: no two within 10 s.
        #expect(document.loudest.map(\.event.id) == [0, 10, 100, 101, 102])
    }

    @Test func theDiarySessionNotesAndEventNotesAppearInTimeOrder() throws {
        let start = ReportFixture.start
        let events = [
            ReportEvent(id: 7, timestamp: start.addingTimeInterval(5.5 * 3600), kind: .footstep, type: .stomping, confidence: 0.9,
                        laMax: 50, notes: "the loudest one"),
        ]
        let diary = [
            ReportDiaryItem(time: start.addingTimeInterval(6 * 3600), kind: .mark, text: "jumping again", writtenAt: start.addingTimeInterval(6 * 3600)),
            ReportDiaryItem(time: start.addingTimeInterval(5 * 3600), kind: .note, text: "Stomping overhead, woke us up", duration: 1200,
                            writtenAt: start.addingTimeInterval(14 * 3600)),
            ReportDiaryItem(time: start, kind: .session, text: "session 1 started: bedroom"),
        ]
        let document = ReportDocument(
            events: events, levels: [], scope: ReportFixture.scope(days: 1), options: ReportOptions(), diary: diary)
        #expect(document.diary.map(\.kind) == [.session, .note, .event, .mark])
        let html = HTMLReport(document: document).render()
        let section = try #require(html.components(separatedBy: "<h2>Diary and notes</h2>").dropFirst().first)
        let order = ["session 1 started: bedroom", "Stomping overhead, woke us up", "event 7 (stomping): the loudest one", "jumping again"]
            .compactMap { section.range(of: $0)?.lowerBound }
        #expect(order.count == 4 && order == order.sorted())
        #expect(section.contains("20 min"))
        let json = try #require(try JSONSerialization.jsonObject(with: JSONReport(document: document).render()) as? [String: Any])
        #expect((json["diary"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } == ["session", "note", "event", "mark"])
        let streamed = JSONReport(document: document).render()
        #expect(String(decoding: streamed, as: UTF8.self) == String(decoding: try ReportJSON.encoder.encode(ReportJSON(document)), as: UTF8.self))
    }
}

/// The stretches between sessions are named by why the session before them ended, listed with the outages, and not
/// counted as recorded.
@Suite("Report coverage: stops between sessions")
struct ReportStopTests {
    static func document(coverage: ReportCoverage) -> ReportDocument {
        ReportDocument(
            events: ReportFixture.events(count: 50, days: 1), levels: ReportFixture.levels(days: 1),
            scope: ReportFixture.scope(days: 2), options: ReportOptions(address: "Flat 2"), coverage: coverage)
    }

    @Test func aStopAndAClosedWindowAreListedWithTheirReasons() throws {
        let start = ReportFixture.start  // 2026-11-20 18:00 local
        let hour = 3600.0
        let coverage = ReportCoverage(
            sessions: [
                // 18:00–01:00, stopped by hand; 02:30–07:00, the window closed; 23:00 the next day, still open.
                ReportCoverage.Session(
                    id: 1, title: "", start: start, end: start.addingTimeInterval(7 * hour), status: "completed",
                    endReason: "stopped on request (footstepctl stop)"),
                ReportCoverage.Session(
                    id: 2, title: "", start: start.addingTimeInterval(8.5 * hour), end: start.addingTimeInterval(13 * hour),
                    status: "completed", endReason: "the monitoring window closed (monitoring schedule)"),
                ReportCoverage.Session(
                    id: 3, title: "", start: start.addingTimeInterval(29 * hour), end: start.addingTimeInterval(30 * hour),
                    status: "recording"),
                // Restarted at once for a new calibration: not a stop worth a row.
                ReportCoverage.Session(
                    id: 4, title: "", start: start.addingTimeInterval(-2 * hour), end: start.addingTimeInterval(-0.2),
                    status: "completed", endReason: "the calibration changed; the next session measures with it"),
            ],
            gaps: [])
        let stops = coverage.stops(until: start.addingTimeInterval(48 * hour))
        #expect(stops.map(\.sessionId) == [1, 2])
        #expect(stops.map(\.nextSessionId) == [2, 3])
        #expect(stops.map { $0.end!.timeIntervalSince($0.start) } == [1.5 * hour, 16 * hour])
        // Night 1 (23:00–07:00): recorded 23:00–01:00 and 02:30–07:00; the stop in between is not counted.
        let document = Self.document(coverage: coverage)
        #expect(abs((document.statistics.nights[0].recordedSeconds ?? 0) - 6.5 * hour) < 0.01)

        let html = HTMLReport(document: document).render()
        #expect(html.contains("Recording was stopped 2 times (17 h 30 min of the period without a session)"))
        #expect(html.contains("session 1 ended: stopped on request (footstepctl stop); session 2 started"))
        #expect(html.contains("session 2 ended: the monitoring window closed (monitoring schedule); session 3 started"))
        #expect(!html.contains("session 4 ended"))

        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONReport(document: document).render()) as? [String: Any])
        let listed = try #require((json["coverage"] as? [String: Any])?["stops"] as? [[String: Any]])
        #expect(listed.map { $0["reason"] as? String } == [
            "stopped on request (footstepctl stop)", "the monitoring window closed (monitoring schedule)",
        ])
        #expect(listed.map { $0["nextSessionId"] as? Int } == [2, 3])
        let sessions = try #require((json["coverage"] as? [String: Any])?["sessions"] as? [[String: Any]])
        #expect(sessions.first { $0["id"] as? Int == 1 }?["endReason"] as? String == "stopped on request (footstepctl stop)")
    }

    @Test func aLastStopRunsToTheEndOfTheReport() {
        let start = ReportFixture.start
        let coverage = ReportCoverage(
            sessions: [
                ReportCoverage.Session(
                    id: 7, title: "", start: start, end: start.addingTimeInterval(3600), status: "completed", endReason: nil)
            ],
            gaps: [])
        let stops = coverage.stops(until: start.addingTimeInterval(7200))
        #expect(stops.count == 1 && stops[0].end == nil && stops[0].reason == "stopped (why was not recorded)")
        #expect(stops[0].seconds(from: start, to: start.addingTimeInterval(7200)) == 3600)
        let html = HTMLReport(document: ReportStopTests.document(coverage: coverage)).render()
        #expect(html.contains("session 7 ended: stopped (why was not recorded)"))
    }
}
