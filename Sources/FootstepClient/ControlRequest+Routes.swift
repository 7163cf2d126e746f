import FootstepCore
import FootstepWire
import Foundation

/// The requests of the control API, one per route, so that callers wanting
/// the raw JSON (`footstepctl … --json`) and the typed methods of
/// ``ControlClient`` send exactly the same thing.
extension ControlRequest {
    /// What `/v1/events` can be asked for.
    public struct EventQuery: Sendable, Equatable {
        public var from: Date?
        public var to: Date?
        public var session: Int64?
        public var type: FootstepType?
        public var kind: EventKind?
        public var minConfidence: Double?
        public var review: ReviewState?
        /// Page size (the server clamps it).
        public var limit: Int?
        /// `next_cursor` of the previous page.
        public var cursor: String?

        public init(
            from: Date? = nil, to: Date? = nil, session: Int64? = nil, type: FootstepType? = nil,
            kind: EventKind? = nil, minConfidence: Double? = nil, review: ReviewState? = nil, limit: Int? = nil,
            cursor: String? = nil
        ) {
            self.from = from
            self.to = to
            self.session = session
            self.type = type
            self.kind = kind
            self.minConfidence = minConfidence
            self.review = review
            self.limit = limit
            self.cursor = cursor
        }
    }

    /// A time range with paging, for `/v1/levels` and `/v1/bouts`.
    public struct RangeQuery: Sendable, Equatable {
        public var from: Date?
        public var to: Date?
        public var session: Int64?
        public var limit: Int?
        public var cursor: String?

        public init(from: Date? = nil, to: Date? = nil, session: Int64? = nil, limit: Int? = nil, cursor: String? = nil) {
            self.from = from
            self.to = to
            self.session = session
            self.limit = limit
            self.cursor = cursor
        }
    }

    public static let status = ControlRequest(.get, APIPaths.status)
    public static let sessions = ControlRequest(.get, APIPaths.sessions)
    public static let configuration = ControlRequest(.get, APIPaths.config)
    public static let reloadConfiguration = ControlRequest(.post, APIPaths.configReload)
    public static let metrics = ControlRequest(.get, APIPaths.metrics)
    public static let liveLevels = ControlRequest(.get, APIPaths.levelsLive)
    public static let liveEvents = ControlRequest(.get, APIPaths.eventsLive)

    public static func recording(_ action: RecordingAction) -> ControlRequest {
        ControlRequest(.post, APIPaths.recording(action.rawValue))
    }

    public static func session(_ id: Int64) -> ControlRequest { ControlRequest(.get, APIPaths.session(id)) }

    public static func deleteSession(_ id: Int64) -> ControlRequest { ControlRequest(.delete, APIPaths.session(id)) }

    public static func patchSession(_ id: Int64, _ patch: SessionPatchRequest) throws(ControlClientError) -> ControlRequest {
        try ControlRequest(.patch, APIPaths.session(id), json: patch)
    }

    public static func events(_ query: EventQuery) -> ControlRequest {
        ControlRequest(
            .get, APIPaths.events,
            query: [
                ("from", query.from.map(APIJSON.formatDate)), ("to", query.to.map(APIJSON.formatDate)),
                ("session", query.session.map(String.init)), ("type", query.type?.rawValue),
                ("kind", query.kind?.rawValue), ("min_confidence", query.minConfidence.map { String($0) }),
                ("review", query.review?.rawValue), ("limit", query.limit.map(String.init)), ("cursor", query.cursor),
            ])
    }

    public static func event(_ id: Int64) -> ControlRequest { ControlRequest(.get, APIPaths.event(id)) }

    public static func patchEvent(_ id: Int64, _ patch: EventPatchRequest) throws(ControlClientError) -> ControlRequest {
        try ControlRequest(.patch, APIPaths.event(id), json: patch)
    }

    public static func clip(_ id: Int64) -> ControlRequest { ControlRequest(.get, APIPaths.clip(id)) }

    /// `POST /v1/reviews` (admin group).
    public static func review(_ review: ReviewRequest) throws(ControlClientError) -> ControlRequest {
        try ControlRequest(.post, APIPaths.reviews, json: review)
    }

    public static func levels(_ query: RangeQuery) -> ControlRequest { range(APIPaths.levels, query) }

    public static func bouts(_ query: RangeQuery) -> ControlRequest { range(APIPaths.bouts, query) }

    public static func calibrate(_ calibration: CalibrationRequest) throws(ControlClientError) -> ControlRequest {
        try ControlRequest(.post, APIPaths.calibration, json: calibration)
    }

    /// `POST /v1/diary`.
    public static func addDiaryEntry(_ entry: DiaryEntryRequest) throws(ControlClientError) -> ControlRequest {
        try ControlRequest(.post, APIPaths.diary, json: entry)
    }

    /// `GET /v1/diary`: entries about `[from, to)`.
    public static func diary(from: Date?, to: Date?) -> ControlRequest {
        ControlRequest(.get, APIPaths.diary, query: [("from", from.map(APIJSON.formatDate)), ("to", to.map(APIJSON.formatDate))])
    }

    private static func range(_ path: String, _ query: RangeQuery) -> ControlRequest {
        ControlRequest(
            .get, path,
            query: [
                ("from", query.from.map(APIJSON.formatDate)), ("to", query.to.map(APIJSON.formatDate)),
                ("session", query.session.map(String.init)), ("limit", query.limit.map(String.init)),
                ("cursor", query.cursor),
            ])
    }
}
