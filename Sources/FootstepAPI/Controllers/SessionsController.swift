import FootstepStore
import FootstepStoreWire
import FootstepWire
import Foundation
import Hummingbird
import Logging

/// `GET /v1/sessions`, `GET/PATCH/DELETE /v1/sessions/{id}`.
struct SessionsController {
    let backend: any ControlBackend
    let bodyLimit: Int
    let logger: Logger

    var routes: [Route] {
        [
            Route(.get, APIPaths.sessions, .read) { request, _ in
                _ = try QueryParameters(request, known: [])
                let sessions = try backend.store().sessions()
                return try jsonResponse(SessionListResponse(items: sessions.map(SessionResponse.init)))
            },
            Route(.get, "/v1/sessions/{id}", .read) { _, context in
                try jsonResponse(SessionResponse(try summary(rowID(context))))
            },
            Route(.patch, "/v1/sessions/{id}", .admin) { request, context in
                let id = try rowID(context)
                let patch = try await decodeBody(SessionPatchRequest.self, from: request, limit: bodyLimit)
                guard patch.title != nil || patch.notes != nil else {
                    throw APIError.badBody("give 'title' and/or 'notes'")
                }
                if let title = patch.title { try Self.checkText(title, field: "title", maximum: 200) }
                if let notes = patch.notes { try Self.checkText(notes, field: "notes", maximum: 10_000) }
                try await backend.write { database in
                    if let title = patch.title { try database.renameSession(id, title: title) }
                    if let notes = patch.notes { try database.setSessionNotes(id, notes: notes) }
                }
                logger.notice("session \(id) edited", metadata: peerMetadata(context))
                return try jsonResponse(SessionResponse(try summary(id)))
            },
            Route(.delete, "/v1/sessions/{id}", .admin) { _, context in
                let id = try rowID(context)
                let deletion = try await backend.deleteSession(id, reason: "deleted through the control socket")
                var removed = 0
                for path in deletion.allPaths {
                    do {
                        try FileManager.default.removeItem(atPath: path)
                        removed += 1
                    } catch {
                        if FileManager.default.fileExists(atPath: path) {
                            logger.error("session \(id) deleted but its file \(path) could not be removed: \(error)")
                        }
                    }
                }
                logger.notice(
                    "session \(id) deleted: \(deletion.eventCount) events, \(removed) files",
                    metadata: peerMetadata(context))
                return try jsonResponse(
                    SessionDeletionResponse(sessionId: id, eventsDeleted: deletion.eventCount, filesDeleted: removed))
            },
        ]
    }

    private func summary(_ id: Int64) throws -> SessionSummary {
        guard let summary = try backend.store().session(id) else { throw APIError.notFound("no session with id \(id)") }
        return summary
    }

    /// Rejects over-long text and control characters other than newlines and tabs.
    static func checkText(_ text: String, field: String, maximum: Int) throws(APIError) {
        guard text.count <= maximum else { throw .badParameter(field, "longer than \(maximum) characters") }
        let forbidden = text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" }
        guard !forbidden else { throw .badParameter(field, "contains control characters") }
    }
}

/// `uid`/`pid` of the caller for audit log lines.
func peerMetadata(_ context: ControlRequestContext) -> Logger.Metadata {
    guard let peer = context.peer else { return [:] }
    return ["peer.uid": "\(peer.uid)", "peer.pid": "\(peer.pid)"]
}
