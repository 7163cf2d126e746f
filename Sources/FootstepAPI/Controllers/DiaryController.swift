import FootstepStore
import FootstepStoreWire
import FootstepWire
import Foundation
import Hummingbird
import Logging

/// `POST /v1/diary` (admin: writes evidence), `GET /v1/diary?from&to` (read).
struct DiaryController {
    let backend: any ControlBackend
    let bodyLimit: Int
    let logger: Logger

    static let parameters: Set<String> = ["from", "to"]

    var routes: [Route] {
        [
            Route(.post, APIPaths.diary, .admin) { request, context in
                let body = try await decodeBody(DiaryEntryRequest.self, from: request, limit: bodyLimit)
                guard let kind = DiaryEntryRecord.Kind(rawValue: body.kind ?? "note") else {
                    throw APIError.badParameter("kind", "must be note or mark")
                }
                let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
                if kind == .note, text.isEmpty { throw APIError.badParameter("text", "must say what happened") }
                try SessionsController.checkText(text, field: "text", maximum: 10_000)
                if let duration = body.durationSeconds, !(duration.isFinite && (0...86_400).contains(duration)) {
                    throw APIError.badParameter("duration_seconds", "must be 0 to 86400 seconds")
                }
                let now = Date()
                // "Now" is now on the recording's clock, where the audio it marks is.
                let at = body.at ?? backend.recordingTime() ?? now
                guard at.timeIntervalSince1970 > 0, at <= now.addingTimeInterval(60) else {
                    throw APIError.badParameter("at", "must not be in the future")
                }
                let duration = body.durationSeconds
                let entry = try await backend.write { database in
                    try database.addDiaryEntry(kind, at: at, duration: duration, text: text, writtenAt: now)
                }
                logger.notice("diary \(kind.rawValue) \(entry.id ?? 0) written", metadata: peerMetadata(context))
                return try jsonResponse(DiaryEntryResponse(entry), status: .created)
            },
            Route(.get, APIPaths.diary, .read) { request, _ in
                let query = try QueryParameters(request, known: Self.parameters)
                let entries = try backend.store().diaryEntries(from: try query.date("from"), to: try query.date("to"))
                return try jsonResponse(entries.map(DiaryEntryResponse.init))
            },
        ]
    }
}
