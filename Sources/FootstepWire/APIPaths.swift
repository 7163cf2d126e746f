/// The control socket's routes (all under `/v1` except `/metrics`), for the
/// server's router and the client alike.
///
/// Live streams (`levelsLive`, `eventsLive`) answer with a chunked body of
/// newline-delimited JSON: one ``LiveLevelReading`` or ``EventResponse`` per line.
/// Errors are ``ErrorResponse`` bodies with a 4xx/5xx status.
public enum APIPaths {
    public static let status = "/v1/status"
    /// `POST /v1/recording/{start|pause|resume|stop}`.
    public static func recording(_ action: String) -> String { "/v1/recording/\(action)" }
    public static let sessions = "/v1/sessions"
    public static func session(_ id: Int64) -> String { "/v1/sessions/\(id)" }
    /// Query: `from`, `to` (ISO 8601), `session`, `type`, `kind`, `min_confidence`, `review`
    /// (`unreviewed`, `confirmed`, `rejected`), `limit`, `cursor`.
    public static let events = "/v1/events"
    public static func event(_ id: Int64) -> String { "/v1/events/\(id)" }
    /// The event's audio clip (`audio/flac` or `audio/wav`).
    public static func clip(_ id: Int64) -> String { "/v1/events/\(id)/clip" }
    public static let eventsLive = "/v1/events/live"
    /// `POST` a ``ReviewRequest`` (admin): confirm, reject or relabel events, a bout or a range.
    public static let reviews = "/v1/reviews"
    /// Query: `from`, `to`, `session`, `limit`, `cursor`.
    public static let levels = "/v1/levels"
    public static let levelsLive = "/v1/levels/live"
    /// Query: `from`, `to`, `session`, `limit`, `cursor`.
    public static let bouts = "/v1/bouts"
    public static let config = "/v1/config"
    public static let configReload = "/v1/config/reload"
    /// `POST` a ``CalibrationRequest``.
    public static let calibration = "/v1/calibration"
    public static let diary = "/v1/diary"
    /// The audio files (``RecordingResponse``), oldest first. Query: `session`.
    public static let recordings = "/v1/recordings"
    /// Prometheus text format.
    public static let metrics = "/metrics"
}
