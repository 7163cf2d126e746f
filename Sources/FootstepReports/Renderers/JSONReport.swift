import FootstepCore
import Foundation

/// The report as JSON: every figure of the document and every event, for other tools.
///
/// The schema is ``ReportJSON`` (`"schema": "footstepd-report"`, `"schemaVersion": 1`).
/// Stable: fields are only ever added; a change of meaning bumps `schemaVersion`.
/// Dates are ISO 8601 UTC with milliseconds (`2026-11-20T23:14:05.120Z`); event
/// `localTime` repeats the onset in the report's zone with its offset. Levels are
/// dB (A- or C-weighted as named), absolute only when `calibration.status` is
/// `calibrated`. Keys are sorted so the same data always gives the same bytes.
public struct JSONReport {
    public var document: ReportDocument

    public init(document: ReportDocument) {
        self.document = document
    }

    /// Writes the JSON to `path` as a stream (replaced atomically when complete).
    public func write(to path: String) throws(ReportError) {
        let file = try ReportOutputFile(path: path)
        write { file.write($0) }
        try file.commit()
    }

    /// The encoded JSON: the same bytes as ``ReportJSON/encoder`` gives for `ReportJSON(document)`.
    public func render() -> Data {
        var data = Data()
        write { data.append(contentsOf: $0.utf8) }
        return data
    }

    /// Streams the JSON to `sink` in chunks: the figures, then every event.
    func write(to sink: @escaping (String) -> Void) {
        let writer = PrettyJSONWriter(sink: sink)
        ReportJSON(document, events: false).write(to: writer, events: document.events, clock: document.clock)
        writer.finish()
    }
}

/// The JSON report's schema (version 1). See ``JSONReport``.
public struct ReportJSON: Codable, Sendable, Equatable {
    public var schema = "footstepd-report"
    public var schemaVersion = 1
    public var title: String
    public var address: String
    public var notes: String
    public var source: String
    public var softwareVersion: String
    public var generatedAt: Date
    public var period: Period
    public var calibration: Calibration
    public var summary: Summary
    public var days: [Day]
    public var nights: [Night]
    public var hourlyLevels: [Levels]
    public var rules: [Rule]
    /// Every event that counts (a review did not reject it).
    public var events: [Event]
    /// The events a review rejected: left out of every count, listed with their reasons.
    public var rejectedEvents: [Event] = []
    /// What was recorded; nil when not known (a report on recordings).
    public var coverage: Coverage?
    /// The store's hash chain as verified for the report; nil when not from a store.
    public var integrity: Integrity?
    /// Devices, microphone, calibrations and noise floor; nil when not known.
    public var equipment: Equipment?
    /// Diary entries, marks, session notes and event notes, in time order.
    public var diary: [DiaryItem]

    public struct DiaryItem: Codable, Sendable, Equatable {
        public var time: Date
        /// `note`, `mark`, `session` or `event`.
        public var kind: String
        public var text: String
        public var durationSeconds: Double?
        public var writtenAt: Date?
    }

    public struct Equipment: Codable, Sendable, Equatable {
        public var devices: [Device]
        public var microphone: String
        public var placement: String
        public var calibrations: [Calibration]
        /// The lowest LA90 of each night.
        public var noiseFloors: [NoiseFloor]
        /// Rules whose limit is within 6 dB of the lowest noise floor.
        public var warnings: [String]

        public struct Device: Codable, Sendable, Equatable {
            public var name: String
            public var sampleRate: Int
            public var channels: Int
            public var sessions: Int
        }

        public struct Calibration: Codable, Sendable, Equatable {
            public var offsetDB: Double
            public var measuredAt: Date
            public var method: String
            public var reference: String
            public var fromConfiguration: Bool
        }

        public struct NoiseFloor: Codable, Sendable, Equatable {
            public var date: String
            public var la90: Double
        }
    }

    public struct Coverage: Codable, Sendable, Equatable {
        /// Seconds of the quiet hours in the period, and of them recorded.
        public var quietHoursSeconds: Double
        public var recordedQuietHoursSeconds: Double
        /// Seconds recorded over the whole period.
        public var recordedSeconds: Double
        public var nightsNotRecorded: [String]
        public var sessions: [Session]
        public var gaps: [Gap]
        /// The stretches between sessions, each with the reason the session before it ended.
        public var stops: [Stop]

        public struct Session: Codable, Sendable, Equatable {
            public var id: Int64
            public var title: String
            public var start: Date
            public var end: Date
            public var status: String
            public var endReason: String?
        }

        public struct Stop: Codable, Sendable, Equatable {
            public var sessionId: Int64
            public var start: Date
            /// nil: no session began before the report's end.
            public var end: Date?
            public var nextSessionId: Int64?
            public var reason: String
            public var interrupted: Bool
        }

        public struct Gap: Codable, Sendable, Equatable {
            public var sessionId: Int64
            public var start: Date
            public var end: Date
            public var reason: String
        }
    }

    public struct Integrity: Codable, Sendable, Equatable {
        public var headHash: String
        public var headEventId: Int64
        public var checkedEvents: Int
        public var intact: Bool
        public var problems: Int
        public var verifiedAt: Date
        public var command: String
    }

    public struct Period: Codable, Sendable, Equatable {
        public var from: Date
        public var to: Date
        public var timeZone: String
        /// `HH:MM-HH:MM`.
        public var quietHours: String
        public var sessionId: Int64?
    }

    public struct Calibration: Codable, Sendable, Equatable {
        /// `calibrated` or `uncalibrated`.
        public var status: String
        public var label: String
        public var offsetDB: Double?
        public var measuredAt: Date?
        public var method: String?
        public var reference: String?
    }

    public struct Levels: Codable, Sendable, Equatable {
        public var start: Date
        public var seconds: Double
        public var laeq: Double
        public var lceq: Double
        public var lafMax: Double
        public var la90: Double
    }

    public struct BusyHour: Codable, Sendable, Equatable {
        public var start: Date
        public var footsteps: Int
    }

    public struct Bouts: Codable, Sendable, Equatable {
        public var count: Int
        public var walking: Int
        public var running: Int
        public var steps: Int
        public var longestSteps: Int?
        public var longestStart: Date?
        public var longestSeconds: Double?
        public var meanCadence: Double?
    }

    public struct Summary: Codable, Sendable, Equatable {
        public var events: Int
        public var footsteps: Int
        public var otherEvents: Int
        /// Footsteps per type (every type present, zeros too).
        public var footstepsByType: [String: Int]
        public var eventsByKind: [String: Int]
        /// 24 entries, local hours.
        public var footstepsByHourOfDay: [Int]
        public var footstepsInQuietHours: Int
        public var eventsInQuietHours: Int
        public var peakHour: Int?
        public var busiestHours: [BusyHour]
        public var nights: Int
        public var nightsDisturbed: Int
        public var levels: Levels?
        public var bouts: Bouts
    }

    public struct Day: Codable, Sendable, Equatable {
        public var date: String
        public var footsteps: Int
        public var other: Int
    }

    public struct Night: Codable, Sendable, Equatable {
        public var date: String
        public var start: Date
        public var end: Date
        public var partial: Bool
        public var footsteps: Int
        public var otherEvents: Int
        public var firstEvent: Date?
        public var lastEvent: Date?
        public var busiestHour: BusyHour?
        public var loudestLAFmax: Double?
        public var bouts: Int
        public var levels: Levels?
        /// Seconds of the night (within the period) with audio; nil when not known.
        public var recordedSeconds: Double?
        /// Nothing of the night was recorded: its counts say nothing.
        public var notRecorded: Bool
        /// How many of the night's events a person confirmed, rejected or has not reviewed, and who.
        public var review: NightReview
        /// The night's worst clock hour minute by minute (the most footsteps; without
        /// footsteps the highest LAeq); absent without level data.
        public var worstHour: WorstHour?
    }

    public struct NightReview: Codable, Sendable, Equatable {
        public var confirmed: Int
        public var rejected: Int
        public var unreviewed: Int
        public var reviewers: [String]
    }

    /// An event's latest review.
    public struct Review: Codable, Sendable, Equatable {
        /// `confirmed` or `rejected`.
        public var verdict: String
        public var reviewer: String
        public var reason: String
    }

    public struct WorstHour: Codable, Sendable, Equatable {
        public var start: Date
        public var footsteps: Int
        public var laeq: Double
        public var minutes: [Minute]
    }

    public struct Minute: Codable, Sendable, Equatable {
        public var start: Date
        public var seconds: Double
        public var laeq: Double
        public var lceq: Double
        public var lafMax: Double
        /// The highest LCFmax of the minute's events (LCFmax is measured per event); absent without events.
        public var eventLCFmax: Double?
        public var footsteps: Int
        public var otherEvents: Int
    }

    public struct Exceedance: Codable, Sendable, Equatable {
        public var time: Date
        public var value: Double
        /// `footstep`, `other` (only other impacts) or `background` (a minute without impacts).
        public var cause: String
    }

    public struct Rule: Codable, Sendable, Equatable {
        public var name: String
        /// `laeq_1min`, `lafmax`, `events_per_hour`.
        public var metric: String
        public var threshold: Double
        public var nightThreshold: Double?
        /// `day`, `night`, `all`.
        public var window: String
        public var minimumPerHour: Int
        public var description: String
        /// False: levels are uncalibrated, the rule was not evaluated.
        public var judgeable: Bool
        public var verdict: String
        public var exceedanceCount: Int
        public var exceedances: [Exceedance]
        public var perNight: [String: Int]
    }

    public struct Event: Codable, Sendable, Equatable {
        public var id: Int64?
        public var sessionId: Int64?
        public var timestamp: Date
        public var localTime: String
        public var kind: String
        public var type: String
        public var confidence: Double
        public var intensity: String?
        public var laMax: Double
        public var lcMax: Double?
        public var sel: Double?
        public var duration: Double
        public var notes: String
        public var clipPath: String?
        public var clipSha256: String?
        /// The type the event was stored with, when a later revision changed `type`.
        public var revisedFrom: String?
        /// What a person who listened said of it; absent while nobody has.
        public var review: Review?
    }

    /// Sorted keys, ISO 8601 UTC dates with milliseconds.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ReportDates.utc(date))
        }
        return encoder
    }

    /// Reads what ``encoder`` wrote.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ReportDates.parseUTC(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 UTC date: \(text)")
            }
            return date
        }
        return decoder
    }
}

extension ReportJSON {
    /// The JSON form of `document`.
    public init(_ document: ReportDocument) {
        self.init(document, events: true)
    }

    /// The JSON form of `document`, with its events or with none (the streaming writer adds them one by one).
    init(_ document: ReportDocument, events includeEvents: Bool) {
        let s = document.statistics
        let scope = document.scope
        let clock = document.clock
        let options = document.options
        func levels(_ l: EvidenceStatistics.LevelSummary?) -> Levels? {
            l.map { Levels(start: $0.start, seconds: $0.seconds, laeq: $0.laeq, lceq: $0.lceq, lafMax: $0.lafMax, la90: $0.la90) }
        }
        func busy(_ b: EvidenceStatistics.BusyHour) -> BusyHour { BusyHour(start: b.start, footsteps: b.footsteps) }
        title = options.title
        address = options.address
        notes = options.notes
        source = options.source
        softwareVersion = options.softwareVersion
        generatedAt = options.generatedAt
        period = Period(from: scope.from, to: scope.to, timeZone: scope.timeZone.identifier, quietHours: scope.quietHours.description, sessionId: scope.sessionId)
        calibration = Calibration(
            status: scope.calibrated ? "calibrated" : "uncalibrated", label: scope.calibrationLabel,
            offsetDB: scope.calibration?.offsetDB, measuredAt: scope.calibration?.measuredAt,
            method: scope.calibration?.method, reference: scope.calibration?.reference)
        let b = s.bouts
        summary = Summary(
            events: s.totalEvents, footsteps: s.footsteps, otherEvents: s.otherEvents,
            footstepsByType: Dictionary(uniqueKeysWithValues: FootstepType.allCases.map { ($0.rawValue, s.footstepsByType[$0, default: 0]) }),
            eventsByKind: Dictionary(uniqueKeysWithValues: EventKind.allCases.map { ($0.rawValue, s.eventsByKind[$0, default: 0]) }),
            footstepsByHourOfDay: s.footstepsByHour, footstepsInQuietHours: s.footstepsInQuietHours,
            eventsInQuietHours: s.eventsInQuietHours, peakHour: s.peakHour, busiestHours: s.busiestHours.map(busy),
            nights: s.nights.count, nightsDisturbed: s.disturbedNights, levels: levels(s.levels),
            bouts: Bouts(
                count: b.count, walking: b.walking, running: b.running, steps: b.steps, longestSteps: b.longest?.steps,
                longestStart: b.longest?.start, longestSeconds: b.longest?.seconds, meanCadence: b.meanCadence))
        days = s.days.map { Day(date: $0.date, footsteps: $0.footsteps, other: $0.other) }
        func review(_ index: Int) -> NightReview {
            let r = document.nightReviews[index]
            return NightReview(confirmed: r.confirmed, rejected: r.rejected, unreviewed: r.unreviewed, reviewers: r.reviewers)
        }
        nights = zip(s.nights.indices, s.nights).map { index, night in
            Night(
                date: night.date, start: night.start, end: night.end, partial: night.partial, footsteps: night.footsteps,
                otherEvents: night.otherEvents, firstEvent: night.firstEvent, lastEvent: night.lastEvent,
                busiestHour: night.busiestHour.map(busy), loudestLAFmax: night.loudestLAFmax, bouts: night.bouts,
                levels: levels(night.levels), recordedSeconds: night.recordedSeconds, notRecorded: night.notRecorded,
                review: review(index),
                worstHour: night.worstHour.map { hour in
                    WorstHour(
                        start: hour.start, footsteps: hour.footsteps, laeq: hour.laeq,
                        minutes: hour.minutes.map {
                            Minute(
                                start: $0.start, seconds: $0.seconds, laeq: $0.laeq, lceq: $0.lceq, lafMax: $0.lafMax,
                                eventLCFmax: $0.eventLCFmax, footsteps: $0.footsteps, otherEvents: $0.otherEvents)
                        })
                })
        }
        coverage = document.coverage.map { coverage in
            Coverage(
                quietHoursSeconds: s.nights.reduce(0) { $0 + ($1.windowSeconds ?? 0) },
                recordedQuietHoursSeconds: s.nights.reduce(0) { $0 + ($1.recordedSeconds ?? 0) },
                recordedSeconds: coverage.recordedSeconds(from: scope.from, to: scope.to),
                nightsNotRecorded: s.nights.filter(\.notRecorded).map(\.date),
                sessions: coverage.sessions.map {
                    Coverage.Session(id: $0.id, title: $0.title, start: $0.start, end: $0.end, status: $0.status, endReason: $0.endReason)
                },
                gaps: coverage.gaps.map { Coverage.Gap(sessionId: $0.sessionId, start: $0.start, end: $0.end, reason: $0.reason) },
                stops: coverage.stops(until: scope.to).map {
                    Coverage.Stop(
                        sessionId: $0.sessionId, start: $0.start, end: $0.end, nextSessionId: $0.nextSessionId, reason: $0.reason,
                        interrupted: $0.interrupted)
                })
        }
        diary = document.diary.map {
            DiaryItem(time: $0.time, kind: $0.kind.rawValue, text: $0.text, durationSeconds: $0.duration, writtenAt: $0.writtenAt)
        }
        equipment = document.equipment.map { equipment in
            Equipment(
                devices: equipment.devices.map {
                    Equipment.Device(name: $0.name, sampleRate: $0.sampleRate, channels: $0.channels, sessions: $0.sessions)
                },
                microphone: equipment.microphone, placement: equipment.placement,
                calibrations: equipment.calibrations.map {
                    Equipment.Calibration(
                        offsetDB: $0.offsetDB, measuredAt: $0.measuredAt, method: $0.method, reference: $0.reference,
                        fromConfiguration: $0.isFromConfiguration)
                },
                noiseFloors: document.noiseFloors.map { Equipment.NoiseFloor(date: $0.date, la90: $0.la90) },
                warnings: document.noiseFloorWarnings)
        }
        integrity = document.integrity.map {
            Integrity(
                headHash: $0.headHash, headEventId: $0.headEventId, checkedEvents: $0.checkedEvents, intact: $0.intact,
                problems: $0.problems, verifiedAt: $0.verifiedAt, command: $0.command)
        }
        hourlyLevels = s.hourlyLevels.compactMap { levels($0) }
        rules = document.rules.map { check in
            Rule(
                name: check.name, metric: check.rule.metric.rawValue, threshold: check.rule.threshold,
                nightThreshold: check.rule.nightThreshold, window: check.rule.window.rawValue,
                minimumPerHour: check.rule.minimumPerHour, description: check.threshold, judgeable: check.judgeable,
                verdict: check.verdict, exceedanceCount: check.exceedances.count,
                exceedances: check.exceedances.map { Exceedance(time: $0.time, value: $0.value, cause: $0.cause.rawValue) },
                perNight: check.perNight)
        }
        events = includeEvents ? document.events.map { Event($0, clock: clock) } : []
        rejectedEvents = document.rejected.map { Event($0, clock: clock) }
    }
}

extension ReportJSON.Event {
    /// The JSON form of one event, its local time in `clock`'s zone.
    init(_ e: ReportEvent, clock: LocalClock) {
        self.init(
            id: e.id, sessionId: e.sessionId, timestamp: e.timestamp, localTime: clock.iso8601(e.timestamp),
            kind: e.kind.rawValue, type: e.type.rawValue, confidence: e.confidence, intensity: e.intensity?.rawValue,
            laMax: e.laMax, lcMax: e.lcMax, sel: e.sel, duration: e.duration, notes: e.notes, clipPath: e.clip?.path,
            clipSha256: e.clip?.sha256, revisedFrom: e.revisedFrom,
            review: e.review.map { ReportJSON.Review(verdict: $0.verdict.rawValue, reviewer: $0.reviewer, reason: $0.reason) })
    }
}
