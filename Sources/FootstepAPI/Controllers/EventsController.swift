import FootstepCore
import FootstepStore
import FootstepStoreWire
import FootstepWire
import Foundation
import Hummingbird
import Logging

/// `GET /v1/events`, `GET/PATCH /v1/events/{id}`, `GET /v1/events/{id}/clip`.
struct EventsController {
    let backend: any ControlBackend
    let bodyLimit: Int
    let logger: Logger

    static let listParameters: Set<String> = [
        "from", "to", "session", "type", "kind", "min_confidence", "review", "limit", "cursor",
    ]

    var routes: [Route] {
        [
            Route(.get, APIPaths.events, .read) { request, _ in
                let filter = try Self.filter(QueryParameters(request, known: Self.listParameters))
                let page = try backend.store().events(filter)
                return try jsonResponse(
                    PageResponse(items: page.items.map(EventResponse.init), nextCursor: page.nextCursor.map(CursorText.format)))
            },
            Route(.get, "/v1/events/{id}", .read) { _, context in
                try jsonResponse(EventResponse(try event(rowID(context))))
            },
            Route(.patch, "/v1/events/{id}", .admin) { request, context in
                let id = try rowID(context)
                let patch = try await decodeBody(EventPatchRequest.self, from: request, limit: bodyLimit)
                try SessionsController.checkText(patch.notes, field: "notes", maximum: 10_000)
                try await backend.write { try $0.setEventNotes(id, notes: patch.notes) }
                logger.info("event \(id) notes edited", metadata: peerMetadata(context))
                return try jsonResponse(EventResponse(try event(id)))
            },
            Route(.get, "/v1/events/{id}/clip", .read) { _, context in
                let event = try event(rowID(context))
                guard let clip = try await backend.clip(for: event) else {
                    throw APIError(
                        .notFound, code: "clip_unavailable",
                        "event \(event.id ?? 0) has no saved clip and its audio is not available (pruned or never kept)")
                }
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: clip.contentType,
                        .contentDisposition: "attachment; filename=\"\(clip.fileName)\"",
                    ],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: clip.data)))
            },
        ]
    }

    private func event(_ id: Int64) throws -> EventRecord {
        guard let event = try backend.store().event(id) else { throw APIError.notFound("no event with id \(id)") }
        return event
    }

    /// The store filter from the query string.
    static func filter(_ query: QueryParameters) throws(APIError) -> EventFilter {
        let (from, to) = try query.range()
        return EventFilter(
            sessionId: try query.int("session", range: 1...Int64.max), from: from, to: to,
            type: try query.enumeration("type", FootstepType.self), kind: try query.enumeration("kind", EventKind.self),
            minConfidence: try query.double("min_confidence", range: 0...1),
            review: try query.enumeration("review", ReviewState.self),
            limit: Int(try query.int("limit", range: 1...Int64(EventFilter.maximumLimit)) ?? 100),
            after: try query.cursor())
    }
}

/// `GET /v1/levels` and `GET /v1/bouts`: stored history by time range.
struct HistoryController {
    let backend: any ControlBackend

    static let parameters: Set<String> = ["from", "to", "session", "limit", "cursor"]
    /// A week of minutes fits one page.
    static let maximumLimit: Int64 = 20_000

    var routes: [Route] {
        [
            Route(.get, APIPaths.levels, .read) { request, _ in
                let query = try QueryParameters(request, known: Self.parameters)
                let (from, to) = try query.range()
                let page = try backend.store().levels(
                    from: from, to: to, session: try query.int("session", range: 1...Int64.max),
                    after: try query.cursor(), limit: Int(try query.int("limit", range: 1...Self.maximumLimit) ?? 1440))
                return try jsonResponse(
                    PageResponse(items: page.items.map(LevelMinuteResponse.init), nextCursor: page.nextCursor.map(CursorText.format)))
            },
            Route(.get, APIPaths.bouts, .read) { request, _ in
                let query = try QueryParameters(request, known: Self.parameters)
                let (from, to) = try query.range()
                let page = try backend.store().bouts(
                    from: from, to: to, session: try query.int("session", range: 1...Int64.max),
                    after: try query.cursor(), limit: Int(try query.int("limit", range: 1...Self.maximumLimit) ?? 1000))
                return try jsonResponse(
                    PageResponse(items: page.items.map(BoutResponse.init), nextCursor: page.nextCursor.map(CursorText.format)))
            },
        ]
    }
}
