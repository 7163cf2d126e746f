import FootstepCore
import Foundation
import Prometheus
import Synchronization

/// The Prometheus metrics of one daemon, refreshed from its status at each scrape.
///
/// Uses its own `PrometheusCollectorRegistry` (not the global `MetricsSystem`),
/// so several daemons can run in one process (tests) without sharing counters.
/// Counters (`…_total`) grow by the increase of the daemon's counters since the
/// last scrape; the daemon's per-device counters may restart at zero after a
/// device restart, which is then not counted as a decrease.
public final class DaemonMetrics: Sendable {
    private struct Counted {
        var overruns = 0
        var xruns = 0
    }

    public let registry = PrometheusCollectorRegistry()
    private let eventsToday: [FootstepType: Gauge]
    private let laeq: Gauge
    private let laf: Gauge
    private let overruns: Counter
    private let xruns: Counter
    private let deviceUp: Gauge
    private let recording: Gauge
    private let audioWriting: Gauge
    private let diskFree: Gauge
    private let audioBytes: Gauge
    private let uptime: Gauge
    private let levelSubscribers: Gauge
    private let eventSubscribers: Gauge
    private let counted = Mutex(Counted())

    public init(version: String) {
        var eventsToday: [FootstepType: Gauge] = [:]
        for type in FootstepType.allCases {
            eventsToday[type] = registry.makeGauge(
                name: "footstepd_events_today", labels: [("type", type.rawValue)],
                help: "Footsteps detected since local midnight, by type")
        }
        self.eventsToday = eventsToday
        laeq = registry.makeGauge(name: "footstepd_level_laeq_db", help: "Current A-weighted equivalent level, dB")
        laf = registry.makeGauge(name: "footstepd_level_laf_db", help: "Current A-weighted Fast level, dB")
        overruns = registry.makeCounter(
            name: "footstepd_capture_overruns_total", help: "Capture periods dropped because analysis fell behind")
        xruns = registry.makeCounter(name: "footstepd_capture_xruns_total", help: "Capture device overruns recovered")
        deviceUp = registry.makeGauge(name: "footstepd_device_up", help: "1 while the capture device delivers audio")
        recording = registry.makeGauge(name: "footstepd_recording", help: "1 while a session is recording (not paused)")
        audioWriting = registry.makeGauge(name: "footstepd_audio_writing", help: "0 while audio writing is suspended")
        diskFree = registry.makeGauge(name: "footstepd_disk_free_bytes", help: "Free bytes on the state directory's file system")
        audioBytes = registry.makeGauge(name: "footstepd_audio_bytes", help: "Bytes of recorded audio")
        uptime = registry.makeGauge(name: "footstepd_uptime_seconds", help: "Seconds since footstepd started")
        levelSubscribers = registry.makeGauge(
            name: "footstepd_live_subscribers", labels: [("stream", "levels")], help: "Connected live subscribers")
        eventSubscribers = registry.makeGauge(
            name: "footstepd_live_subscribers", labels: [("stream", "events")], help: "Connected live subscribers")
        registry.makeGauge(name: "footstepd_build_info", labels: [("version", version)], help: "footstepd's version")
            .set(to: 1)
    }

    /// Updates every metric from `status` and renders the registry in the Prometheus text format.
    public func render(status: StatusResponse, levelSubscribers: Int, eventSubscribers: Int) -> [UInt8] {
        for (type, gauge) in eventsToday { gauge.set(to: Double(status.eventsToday[type.rawValue] ?? 0)) }
        if let level = status.level {
            laeq.set(to: level.laeqDB)
            laf.set(to: level.lafDB)
        }
        counted.withLock { counted in
            let capture = status.capture
            if capture.overruns > counted.overruns { overruns.increment(by: Int64(capture.overruns - counted.overruns)) }
            if capture.xruns > counted.xruns { xruns.increment(by: Int64(capture.xruns - counted.xruns)) }
            counted.overruns = capture.overruns
            counted.xruns = capture.xruns
        }
        deviceUp.set(to: status.capture.deviceUp ? 1 : 0)
        recording.set(to: status.state == "recording" ? 1 : 0)
        audioWriting.set(to: status.storage.audioWriting ? 1 : 0)
        if let free = status.storage.diskFreeBytes { diskFree.set(to: Double(free)) }
        if let bytes = status.storage.audioBytes { audioBytes.set(to: Double(bytes)) }
        uptime.set(to: status.uptimeSeconds)
        self.levelSubscribers.set(to: Double(levelSubscribers))
        self.eventSubscribers.set(to: Double(eventSubscribers))
        return registry.emitToBuffer()
    }
}
