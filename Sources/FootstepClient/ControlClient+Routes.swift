import FootstepWire
import Foundation

/// Typed methods, one per route of the control API.
extension ControlClient {
    /// `GET /v1/status`.
    public func status() async throws(ControlClientError) -> StatusResponse {
        try await value(StatusResponse.self, .status)
    }

    /// `POST /v1/recording/{start|pause|resume|stop}` (admin group).
    public func recording(_ action: RecordingAction) async throws(ControlClientError) -> ActionResponse {
        try await value(ActionResponse.self, .recording(action))
    }

    /// `GET /v1/sessions`, oldest first.
    public func sessions() async throws(ControlClientError) -> [SessionResponse] {
        try await value(SessionListResponse.self, .sessions).items
    }

    /// `GET /v1/sessions/{id}`.
    public func session(_ id: Int64) async throws(ControlClientError) -> SessionResponse {
        try await value(SessionResponse.self, .session(id))
    }

    /// `PATCH /v1/sessions/{id}` (admin group): changes the title and/or notes.
    public func updateSession(_ id: Int64, title: String? = nil, notes: String? = nil) async throws(ControlClientError)
        -> SessionResponse
    {
        try await value(SessionResponse.self, try .patchSession(id, SessionPatchRequest(title: title, notes: notes)))
    }

    /// `DELETE /v1/sessions/{id}` (admin group): removes the session, its events and audio.
    public func deleteSession(_ id: Int64) async throws(ControlClientError) -> SessionDeletionResponse {
        try await value(SessionDeletionResponse.self, .deleteSession(id))
    }

    /// `GET /v1/events`: one page.
    public func events(_ query: ControlRequest.EventQuery) async throws(ControlClientError) -> PageResponse<EventResponse> {
        try await value(PageResponse<EventResponse>.self, .events(query))
    }

    /// Follows `next_cursor` from page to page until `limit` events (or the end).
    ///
    /// - Parameter pageSize: Events asked for per request.
    public func allEvents(_ query: ControlRequest.EventQuery, limit: Int, pageSize: Int = 1000)
        async throws(ControlClientError) -> PageResponse<EventResponse>
    {
        var query = query
        var items: [EventResponse] = []
        while true {
            query.limit = min(pageSize, limit - items.count)
            let page = try await events(query)
            items += page.items
            guard let cursor = page.nextCursor, items.count < limit, !page.items.isEmpty else {
                return PageResponse(items: Array(items.prefix(limit)), nextCursor: page.nextCursor)
            }
            query.cursor = cursor
        }
    }

    /// `GET /v1/events/{id}`.
    public func event(_ id: Int64) async throws(ControlClientError) -> EventResponse {
        try await value(EventResponse.self, .event(id))
    }

    /// `PATCH /v1/events/{id}` (admin group): replaces the notes.
    public func updateEvent(_ id: Int64, notes: String) async throws(ControlClientError) -> EventResponse {
        try await value(EventResponse.self, try .patchEvent(id, EventPatchRequest(notes: notes)))
    }

    /// `GET /v1/events/{id}/clip`: the audio and its content type (`audio/flac`, `audio/wav`).
    public func clip(_ id: Int64) async throws(ControlClientError) -> (data: Data, contentType: String?) {
        let response = try await successful(.clip(id))
        return (response.body, response.contentType)
    }

    /// `GET /v1/levels`: one page of stored level intervals.
    public func levels(_ query: ControlRequest.RangeQuery) async throws(ControlClientError)
        -> PageResponse<LevelMinuteResponse>
    {
        try await value(PageResponse<LevelMinuteResponse>.self, .levels(query))
    }

    /// `GET /v1/bouts`: one page of gait bouts.
    public func bouts(_ query: ControlRequest.RangeQuery) async throws(ControlClientError) -> PageResponse<BoutResponse> {
        try await value(PageResponse<BoutResponse>.self, .bouts(query))
    }

    /// `GET /v1/config`: the configuration in force.
    public func configuration() async throws(ControlClientError) -> ConfigurationResponse {
        try await value(ConfigurationResponse.self, .configuration)
    }

    /// `POST /v1/config/reload` (admin group).
    public func reloadConfiguration() async throws(ControlClientError) -> ActionResponse {
        try await value(ActionResponse.self, .reloadConfiguration)
    }

    /// `POST /v1/calibration` (admin group): stores and applies a calibration offset.
    public func calibrate(_ calibration: CalibrationRequest) async throws(ControlClientError) -> CalibrationResponse {
        try await value(CalibrationResponse.self, try .calibrate(calibration))
    }

    /// `GET /metrics`: the Prometheus text exposition.
    public func metrics() async throws(ControlClientError) -> String {
        String(decoding: try await data(.metrics), as: UTF8.self)
    }

    /// Confirms, rejects or relabels events, a bout or a range, as the user this process runs as.
    public func review(_ review: ReviewRequest) async throws(ControlClientError) -> ReviewResponse {
        try await value(ReviewResponse.self, try .review(review))
    }

    /// Writes a diary entry or a mark.
    public func addDiaryEntry(_ entry: DiaryEntryRequest) async throws(ControlClientError) -> DiaryEntryResponse {
        try await value(DiaryEntryResponse.self, .addDiaryEntry(entry))
    }

    /// The diary entries about `[from, to)`, oldest first.
    public func diary(from: Date? = nil, to: Date? = nil) async throws(ControlClientError) -> [DiaryEntryResponse] {
        try await value([DiaryEntryResponse].self, .diary(from: from, to: to))
    }
}
