import Foundation
import Prometheus

/// The sensors' figures in Prometheus' text format (`footstep-collector status --prometheus`), for node_exporter's
/// textfile collector: one gauge per figure, labelled by sensor.
public enum SensorMetrics {
    public static func render(_ sensors: [SensorStatus]) -> String {
        let registry = PrometheusCollectorRegistry()
        func gauge(_ name: String, _ help: String, _ value: (SensorStatus) -> Double?) {
            for sensor in sensors {
                guard let value = value(sensor) else { continue }
                registry.makeGauge(
                    descriptor: MetricNameDescriptor(
                        namespace: "footstep_collector", subsystem: "sensor", metricName: name, unitName: "", helpText: help),
                    labels: [("sensor", sensor.name)]
                ).set(to: value)
            }
        }
        gauge("last_seen_timestamp_seconds", "When the sensor was last heard from (Unix time)") {
            $0.lastSeen.timeIntervalSince1970
        }
        gauge("online", "1 while the sensor says online, 0 once it (or its last will) says offline") {
            $0.availability.map { $0 == "online" ? 1 : 0 }
        }
        gauge("recording", "1 while the sensor records") { $0.recording.map { $0 ? 1 : 0 } }
        gauge("gaps_24h", "Stretches without audio in the last 24 hours") { Double($0.gapsLast24Hours) }
        gauge("events_today", "Footsteps since midnight UTC, deleted ones left out") { Double($0.eventsToday) }
        gauge("chain_verified_to", "The last event of the sensor's verified chain") { Double($0.chainVerifiedTo) }
        gauge("chain_breaks", "Chain breaks no deletion explains (missing or altered events)") { Double($0.chainBreaks) }
        gauge("chain_waiting", "1 while an event waits for the events before it (a hole not yet a break)") {
            $0.chainWaitingSince == nil ? 0 : 1
        }
        return String(decoding: registry.emitToBuffer(), as: UTF8.self)
    }
}
