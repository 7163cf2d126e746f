import FootstepCore
import Foundation

/// The content of one report, computed once and rendered four ways (PDF, HTML,
/// CSV, JSON): statistics, rule checks, the nights, the listed events and the
/// loudest events with their audio thumbnails.
public struct ReportDocument: Sendable {
    public var options: ReportOptions
    public var scope: ReportScope
    public var statistics: EvidenceStatistics
    /// What was recorded (nil: not known).
    public var coverage: ReportCoverage?
    /// The store's hash chain as verified for this report (nil: not from a store).
    public var integrity: ReportIntegrity?
    /// Devices, microphone and calibrations (nil: not known).
    public var equipment: ReportEquipment?
    /// Diary entries, marks, session notes and event notes, in time order.
    public var diary: [ReportDiaryItem]
    /// Standard rules first, then the user's.
    public var rules: [RuleCheck]
    /// Every event in the scope that counts, oldest first: those a review rejected are in ``rejected``.
    public var events: [ReportEvent]
    /// The events in the scope a review rejected, oldest first: listed with their reasons, counted nowhere else.
    public var rejected: [ReportEvent]
    /// The review of each night of `statistics.nights`, in the same order.
    public var nightReviews: [NightReview]
    /// Every level interval in the scope, oldest first.
    public var levels: [ReportLevelInterval]
    /// The events the PDF and HTML list, oldest first: all of them, or when there are more
    /// than `options.maximumListedEvents`, the loudest that many and every event with notes.
    public var listedEvents: [ReportEvent]
    /// The loudest events, loudest first, at least `loudestSeparation` apart (one incident once), with their audio
    /// when it could be read.
    public var loudest: [LoudestEvent]

    /// How many events of a night a person confirmed, rejected or left unreviewed, and who reviewed them.
    public struct NightReview: Sendable, Equatable {
        public var confirmed = 0
        public var rejected = 0
        public var unreviewed = 0
        /// The reviewers' user names, sorted.
        public var reviewers: [String] = []

        /// Nobody reviewed any event of the night.
        public var isUnreviewed: Bool { confirmed == 0 && rejected == 0 }
        public var events: Int { confirmed + rejected + unreviewed }
    }

    /// One of the loudest events.
    public struct LoudestEvent: Sendable {
        public var event: ReportEvent
        public var audio: ReportAudio?
        public var thumbnail: AudioThumbnail?
    }

    /// Builds the document.
    ///
    /// - Parameter audio: Reads the clip of one of the loudest events (nil: none available).
    /// - Parameter coverage: What was recorded (nil: not known, e.g. a report on recordings).
    /// - Parameter integrity: The store's hash chain as verified for this report.
    /// - Parameter equipment: The devices, microphone and calibrations behind the levels.
    /// - Parameter diary: Diary entries, marks and session notes (event notes are added from `events`).
    public init(
        events: [ReportEvent], levels: [ReportLevelInterval], bouts: [ReportBout] = [], scope: ReportScope,
        options: ReportOptions, coverage: ReportCoverage? = nil, integrity: ReportIntegrity? = nil,
        equipment: ReportEquipment? = nil, diary: [ReportDiaryItem] = [],
        audio: (ReportEvent) -> ReportAudio? = { _ in nil }
    ) {
        self.options = options
        self.scope = scope
        self.coverage = coverage
        self.integrity = integrity
        self.equipment = equipment
        let eventNotes = events.filter { !$0.notes.isEmpty && scope.contains($0.timestamp) }.map {
            ReportDiaryItem(time: $0.timestamp, kind: .event, text: "event \($0.id.map(String.init) ?? "") (\($0.kind.label($0.type))): \($0.notes)")
        }
        self.diary = (diary.filter { scope.contains($0.time) } + eventNotes).sorted { $0.time < $1.time }
        let all = events.filter { scope.contains($0.timestamp) }.sorted { $0.timestamp < $1.timestamp }
        let inScope = all.filter { !$0.isRejected }
        let levelsInScope = levels.filter { scope.contains($0.start) }.sorted { $0.start < $1.start }
        self.events = inScope
        rejected = all.filter(\.isRejected)
        self.levels = levelsInScope
        statistics = EvidenceStatistics(events: inScope, levels: levelsInScope, bouts: bouts, scope: scope)
        if let coverage {
            for index in statistics.nights.indices {
                let night = statistics.nights[index]
                let from = max(night.start, scope.from)
                let to = min(night.end, scope.to)
                statistics.nights[index].recordedSeconds = coverage.recordedSeconds(from: from, to: to)
                statistics.nights[index].windowSeconds = max(0, to.timeIntervalSince(from))
            }
        }
        nightReviews = statistics.nights.map { night in
            Self.review(of: EvidenceStatistics.slice(all, from: night.start, to: night.end, time: \.timestamp))
        }
        rules = RuleCheck.checks(ReportRule.standard + options.rules, events: inScope, levels: levelsInScope, scope: scope)
        // Indices, not the events, are sorted: an event is a large value and a month has 100,000.
        let byLoudness = inScope.indices.sorted {
            inScope[$0].laMax != inScope[$1].laMax ? inScope[$0].laMax > inScope[$1].laMax : $0 < $1
        }
        if inScope.count > options.maximumListedEvents {
            var listed = Set(byLoudness.prefix(options.maximumListedEvents))
            for index in inScope.indices where !inScope[index].notes.isEmpty { listed.insert(index) }
            listedEvents = listed.sorted().map { inScope[$0] }
        } else {
            listedEvents = inScope
        }
        loudest = Self.separated(byLoudness.map { inScope[$0] }, count: options.loudestCount).map { event in
            let clip = audio(event)
            return LoudestEvent(event: event, audio: clip, thumbnail: clip.map { AudioThumbnail($0) })
        }
    }

    /// The review counts of `events` (one night's, rejected ones included).
    static func review(of events: ArraySlice<ReportEvent>) -> NightReview {
        var review = NightReview()
        var reviewers = Set<String>()
        for event in events {
            switch event.review?.verdict {
            case .confirmed?: review.confirmed += 1
            case .rejected?: review.rejected += 1
            case nil: review.unreviewed += 1
            }
            if let reviewer = event.review?.reviewer { reviewers.insert(reviewer) }
        }
        review.reviewers = reviewers.sorted()
        return review
    }

    /// One line saying how a night was reviewed: "12 confirmed, 3 rejected, 40 not reviewed (by alice)", or that
    /// nobody listened to its events.
    public func reviewLine(_ index: Int) -> String {
        let review = nightReviews[index]
        guard review.events > 0 else { return "no events" }
        guard !review.isUnreviewed else {
            return "not reviewed: nobody has listened to its \(review.events) event\(review.events == 1 ? "" : "s") yet"
        }
        return "\(review.confirmed) confirmed, \(review.rejected) rejected, \(review.unreviewed) not reviewed"
            + " (by \(review.reviewers.joined(separator: ", ")))"
    }

    /// How far apart the loudest events' onsets must be: the raps of one knock or the steps of one stomp
    /// share a clip, and the list would show one incident many times.
    static let loudestSeparation: TimeInterval = 10

    /// The first `count` of `events` (loudest first) whose onsets lie at least `loudestSeparation` from every louder
    /// one's.
    static func separated(_ events: [ReportEvent], count: Int) -> [ReportEvent] {
        var chosen: [ReportEvent] = []
        for event in events where chosen.count < count {
            if chosen.allSatisfy({ abs($0.timestamp.timeIntervalSince(event.timestamp)) >= loudestSeparation }) {
                chosen.append(event)
            }
        }
        return chosen
    }

    /// Whether the PDF/HTML list leaves events out (the CSV and JSON have them all).
    public var listIsTruncated: Bool { listedEvents.count < events.count }

    /// The heading of the event list.
    public var listHeading: String {
        guard listIsTruncated else { return "All events" }
        return "The \(options.maximumListedEvents) loudest events and every event with notes, in time order"
    }

    /// What the event list leaves out, when it does.
    public var listNote: String? {
        guard listIsTruncated else { return nil }
        let noted = events.lazy.filter { !$0.notes.isEmpty }.count
        return "The period has \(events.count) events; this list shows the \(options.maximumListedEvents) loudest and all "
            + "\(noted) with notes (\(listedEvents.count) rows). The CSV and JSON reports list every event."
    }

    /// What a `*` after a label means, when any event of the period was revised.
    public var revisionNote: String? {
        let revised = events.lazy.filter { $0.revisedFrom != nil }.count
        guard revised > 0 else { return nil }
        return "* Label revised once the impacts around the event or the step's whole walk had been heard "
            + "(\(revised) event\(revised == 1 ? "" : "s")); the label each was stored with is kept "
            + "(CSV revised_from, JSON revisedFrom) and the revision is hashed onto the event."
    }

    /// The level intervals and events of one night, for its timeline chart.
    public func timeline(of night: EvidenceStatistics.Night) -> (levels: ArraySlice<ReportLevelInterval>, events: ArraySlice<ReportEvent>) {
        (
            EvidenceStatistics.slice(levels, from: night.start, to: night.end, time: \.start),
            EvidenceStatistics.slice(events, from: night.start, to: night.end, time: \.timestamp)
        )
    }

    // MARK: Text shared by the renderers

    var clock: LocalClock { LocalClock(timeZone: scope.timeZone, from: scope.from, to: scope.to) }

    /// "2026-11-20 22:00 to 2026-11-21 08:00 (Europe/London)".
    public var periodText: String {
        let clock = clock
        return "\(clock.dateTime(scope.from).prefix(16)) to \(clock.dateTime(scope.to).prefix(16)) (\(scope.timeZone.identifier))"
    }

    /// The one-sentence answer a reader looks for first.
    public var headline: String {
        let s = statistics
        var text = "\(s.footsteps) footstep\(s.footsteps == 1 ? "" : "s") and \(s.otherEvents) other impact\(s.otherEvents == 1 ? "" : "s")"
        text += "; \(s.eventsInQuietHours) during quiet hours (\(scope.quietHours)), on \(s.disturbedNights) of \(s.nights.count) night\(s.nights.count == 1 ? "" : "s")."
        return text
    }

    /// Plain statement about calibration, printed near every level table.
    public var calibrationStatement: String {
        if let calibration = scope.calibration, calibration.isFromConfiguration {
            return "Levels are \(scope.calibrationLabel): the offset was set in the configuration file "
                + "(levels.calibration_offset) without a recorded reference measurement, so absolute levels and rule "
                + "checks are only as accurate as that offset. Record a measurement with footstepctl calibrate."
        }
        if let calibration = scope.calibration {
            var text = "Levels are \(scope.calibrationLabel)"
            if !calibration.method.isEmpty { text += "; method: \(calibration.method)" }
            if !calibration.reference.isEmpty { text += "; reference: \(calibration.reference)" }
            return text + "."
        }
        return "Levels are uncalibrated, relative dBFS: they show how loud events were compared with each other and with "
            + "the background, not in absolute dB. Rules with absolute thresholds cannot be judged from them."
    }

    /// Session and software line for the title page.
    public var provenance: String {
        var parts: [String] = []
        if !options.source.isEmpty { parts.append("Source: \(options.source)") }
        if let session = scope.sessionId { parts.append("session \(session)") }
        parts.append("footstepd \(options.softwareVersion.isEmpty ? "(unknown version)" : options.softwareVersion)")
        return parts.joined(separator: ", ")
    }

    func level(_ value: Double?) -> String { value.map { ReportNumber.fixed($0, 1) } ?? "–" }
}
