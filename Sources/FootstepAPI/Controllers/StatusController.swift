import FootstepWire
import Hummingbird

/// `GET /v1/status` and `POST /v1/recording/{start,pause,resume,stop}`.
struct StatusController {
    let backend: any ControlBackend

    var routes: [Route] {
        var routes = [
            Route(.get, APIPaths.status, .read) { _, _ in
                try jsonResponse(try backend.status())
            }
        ]
        for action in RecordingAction.allCases {
            routes.append(
                Route(.post, APIPaths.recording(action.rawValue), .admin) { _, _ in
                    try jsonResponse(try await backend.perform(action))
                })
        }
        return routes
    }
}
