import FootstepStore
import FootstepStoreWire
import FootstepWire
import Hummingbird

/// `GET /v1/recordings?session=ID` (read): the audio files, oldest first.
struct RecordingsController {
    let backend: any ControlBackend

    static let parameters: Set<String> = ["session"]

    var routes: [Route] {
        [
            Route(.get, APIPaths.recordings, .read) { request, _ in
                let query = try QueryParameters(request, known: Self.parameters)
                let database = try backend.store()
                let sessions: [Int64]
                if let session = try query.int("session", range: 1...Int64.max) {
                    guard try database.session(session) != nil else { throw APIError.notFound("no session with id \(session)") }
                    sessions = [session]
                } else {
                    sessions = try database.sessions().compactMap(\.session.id)
                }
                var files: [AudioFileRecord] = []
                for session in sessions { files += try database.audioFiles(session: session) }
                return try jsonResponse(files.sorted { $0.startedAt < $1.startedAt }.map(RecordingResponse.init))
            }
        ]
    }
}
