import FootstepWire
import Hummingbird

/// `GET /metrics` in the Prometheus text format (on the socket and on the
/// optional loopback TCP listener).
struct MetricsController {
    let backend: any ControlBackend
    let metrics: DaemonMetrics

    var routes: [Route] {
        [
            Route(.get, APIPaths.metrics, .read) { _, _ in
                let text = metrics.render(
                    status: try backend.status(), levelSubscribers: backend.liveLevels.subscriberCount,
                    eventSubscribers: backend.liveEvents.subscriberCount)
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
            }
        ]
    }
}
