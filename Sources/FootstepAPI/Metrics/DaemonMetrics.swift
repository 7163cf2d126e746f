import FootstepCore
import FootstepWire
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
        var invalidSamples = 0
    }

    public let registry = PrometheusCollectorRegistry()
    private let eventsToday: [FootstepType: Gauge]
    private let laeq: Gauge
    private let laf: Gauge
    private let overruns: Counter
    private let xruns: Counter
    private let invalidSamples: Counter
    private let deviceUp: Gauge
    private let recording: Gauge
    private let audioWriting: Gauge
    private let diskFree: Gauge
    private let audioBytes: Gauge
    private let uptime: Gauge
    private let levelSubscribers: Gauge
    private let eventSubscribers: Gauge
    private let mqttConnected: Gauge
    private let mqttOutboxDepth: Gauge
    private let mqttOutboxAge: Gauge
    private let mqttDropped: Gauge
    private let counted = Mutex(Counted())

    public init(version: String) {
        var eventsToday: [FootstepType: Gauge] = [:]
        for type in FootstepType.allCases {
            eventsToday[type] = registry.makeGauge(
                descriptor: Self.name("events", "today", "Footsteps detected since local midnight, by type"),
                labels: [("type", type.rawValue)])
        }
        self.eventsToday = eventsToday
        laeq = registry.makeGauge(descriptor: Self.name("laeq", "db", "Current A-weighted equivalent level, dB", subsystem: "level"))
        laf = registry.makeGauge(descriptor: Self.name("laf", "db", "Current A-weighted Fast level, dB", subsystem: "level"))
        overruns = registry.makeCounter(
            descriptor: Self.name("overruns", "total", "Capture periods dropped because analysis fell behind", subsystem: "capture"))
        xruns = registry.makeCounter(descriptor: Self.name("xruns", "total", "Capture device overruns recovered", subsystem: "capture"))
        invalidSamples = registry.makeCounter(
            descriptor: Self.name(
                "invalid_samples", "total", "Samples analysed as silence: not numbers or beyond 60 dB over full scale", subsystem: "capture"))
        deviceUp = registry.makeGauge(descriptor: Self.name("device", "up", "1 while the capture device delivers audio"))
        recording = registry.makeGauge(descriptor: Self.name("recording", "", "1 while a session is recording (not paused)"))
        audioWriting = registry.makeGauge(descriptor: Self.name("audio_writing", "", "0 while audio writing is suspended"))
        diskFree = registry.makeGauge(descriptor: Self.name("disk_free", "bytes", "Free bytes on the state directory's file system"))
        audioBytes = registry.makeGauge(descriptor: Self.name("audio", "bytes", "Bytes of recorded audio"))
        uptime = registry.makeGauge(descriptor: Self.name("uptime", "seconds", "Seconds since footstepd started"))
        levelSubscribers = registry.makeGauge(
            descriptor: Self.name("live_subscribers", "", "Connected live subscribers"), labels: [("stream", "levels")])
        eventSubscribers = registry.makeGauge(
            descriptor: Self.name("live_subscribers", "", "Connected live subscribers"), labels: [("stream", "events")])
        mqttConnected = registry.makeGauge(
            descriptor: Self.name("connected", "", "1 while the MQTT broker is connected (absent while MQTT is off)", subsystem: "mqtt"))
        mqttOutboxDepth = registry.makeGauge(
            descriptor: Self.name("outbox", "rows", "Stored records waiting to be published to MQTT", subsystem: "mqtt"))
        mqttOutboxAge = registry.makeGauge(
            descriptor: Self.name("outbox_oldest_age", "seconds", "Age of the oldest unpublished record", subsystem: "mqtt"))
        mqttDropped = registry.makeGauge(
            descriptor: Self.name("outbox_dropped", "rows", "Level minutes dropped to keep the outbox bounded", subsystem: "mqtt"))
        registry.makeGauge(descriptor: Self.name("build", "info", "footstepd's version"), labels: [("version", version)])
            .set(to: 1)
    }

    /// `footstepd_[subsystem_]metric[_unit]` with its help text.
    private static func name(_ metric: String, _ unit: String, _ help: String, subsystem: String? = nil)
        -> MetricNameDescriptor
    {
        MetricNameDescriptor(namespace: "footstepd", subsystem: subsystem, metricName: metric, unitName: unit, helpText: help)
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
            if capture.invalidSamples > counted.invalidSamples {
                invalidSamples.increment(by: Int64(capture.invalidSamples - counted.invalidSamples))
            }
            counted.overruns = capture.overruns
            counted.xruns = capture.xruns
            counted.invalidSamples = capture.invalidSamples
        }
        deviceUp.set(to: status.capture.deviceUp ? 1 : 0)
        recording.set(to: status.state == "recording" ? 1 : 0)
        audioWriting.set(to: status.storage.audioWriting ? 1 : 0)
        if let free = status.storage.diskFreeBytes { diskFree.set(to: Double(free)) }
        if let bytes = status.storage.audioBytes { audioBytes.set(to: Double(bytes)) }
        uptime.set(to: status.uptimeSeconds)
        if let mqtt = status.mqtt {
            mqttConnected.set(to: mqtt.connected ? 1 : 0)
            mqttOutboxDepth.set(to: Double(mqtt.outboxDepth))
            mqttOutboxAge.set(to: mqtt.oldestQueuedAt.map { max(0, Date().timeIntervalSince($0)) } ?? 0)
            mqttDropped.set(to: Double(mqtt.dropped))
        }
        self.levelSubscribers.set(to: Double(levelSubscribers))
        self.eventSubscribers.set(to: Double(eventSubscribers))
        return registry.emitToBuffer()
    }
}
