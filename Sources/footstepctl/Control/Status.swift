import ArgumentParser
import FootstepClient
import FootstepCore
import FootstepWire
import Foundation

extension FootstepCtl {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what footstepd is doing: state, session, level, today's events, health.",
            discussion: ControlExitCodes.discussion(""))

        @OptionGroup(title: "Connection") var connection: ConnectionOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try await connection.withClient { client in
                let data = try await client.data(.status)
                if output.json { return OutputOptions.printJSON(data) }
                let status = try ControlClient.decode(StatusResponse.self, from: data)
                StatusPrinter(terminal: .standardOutput).lines(status).forEach { print($0) }
            }
        }
    }
}

/// The human form of `/v1/status`: one `label  value` line per fact.
struct StatusPrinter {
    let terminal: Terminal

    func lines(_ status: StatusResponse) -> [String] {
        var rows: [(String, String)] = [("state", stateText(status.state))]
        if let session = status.session {
            let title = session.title.isEmpty ? "" : " \"\(session.title)\""
            rows.append(
                ("session", "\(session.id)\(title), since \(HumanFormat.time(session.startedAt)) (\(HumanFormat.duration(session.durationSeconds)))"))
        } else {
            rows.append(("session", "none"))
        }
        if let device = status.device {
            let format = [device.sampleRate.map { "\($0) Hz" }, device.channels.map { "\($0) ch" }, device.format]
                .compactMap { $0 }.joined(separator: ", ")
            rows.append(("device", format.isEmpty ? device.name : "\(device.name) (\(format))"))
        }
        if let level = status.level {
            // Bands name absolute levels: an uncalibrated (dBFS-relative) level has none.
            let text = "LAeq \(HumanFormat.decibels(level.laeqDB)), LAF \(HumanFormat.decibels(level.lafDB))"
            rows.append(
                ("level", level.calibrated
                    ? text + " dB(A), " + terminal.paint(level.band.rawValue, Terminal.colour(of: level.band))
                    : text + " dB(A) relative to full scale (uncalibrated)"))
        }
        rows.append(("today", Self.todayLine(status.eventsToday)))
        if let event = status.lastEvent {
            rows.append(
                ("last event", "#\(event.id) \(HumanFormat.time(event.timestamp)) \(event.kind.label(event.type)) \(HumanFormat.decibels(event.laMax)) dB(A)"))
        }
        let capture = status.capture
        var health = "\(capture.overruns) overruns, \(capture.xruns) xruns"
        if capture.invalidSamples > 0 {
            health += ", " + terminal.paint("\(capture.invalidSamples) invalid samples (NaN or out of range) heard as silence", .red)
        }
        if !capture.deviceUp { health = terminal.paint("device down", .red) + ", " + health }
        rows.append(("capture", health))
        var storage: [String] = []
        if let free = status.storage.diskFreeBytes { storage.append("\(HumanFormat.bytes(free)) free") }
        if let audio = status.storage.audioBytes { storage.append("\(HumanFormat.bytes(audio)) of audio") }
        if !status.storage.audioWriting { storage.append(terminal.paint("audio writing suspended", .red)) }
        if !storage.isEmpty { rows.append(("disk", storage.joined(separator: ", "))) }
        if let mqtt = status.mqtt {
            var text = mqtt.connected ? "connected to \(mqtt.broker)" : terminal.paint("not connected to \(mqtt.broker)", .red)
            if let problem = mqtt.problem, !mqtt.connected { text += " (\(problem))" }
            text += ", \(mqtt.outboxDepth) waiting"
            if let oldest = mqtt.oldestQueuedAt, mqtt.outboxDepth > 0 { text += " since \(HumanFormat.time(oldest))" }
            if mqtt.dropped > 0 { text += ", " + terminal.paint("\(mqtt.dropped) level minutes dropped", .red) }
            rows.append(("mqtt", text))
        }
        if let schedule = status.schedule {
            var text = "\(schedule.description) (\(schedule.active ? "active" : "inactive")"
            if let next = schedule.nextChange { text += ", changes at \(HumanFormat.time(next))" }
            rows.append(("schedule", text + ")"))
        }
        rows.append(("uptime", HumanFormat.duration(status.uptimeSeconds)))
        rows.append(("version", status.version))
        if let error = status.lastError { rows.append(("last error", terminal.paint(error, .red))) }
        return HumanFormat.labelled(rows)
    }

    private func stateText(_ state: String) -> String {
        switch state {
        case "recording": terminal.paint(state, .green)
        case "paused", "idle": terminal.paint(state, .orange)
        case "device-lost": terminal.paint(state, .red)
        default: state
        }
    }

    /// "12 footsteps (7 heel_strike, 5 running), 3 other impacts": `other` is an
    /// impact, not a footstep, and is counted apart.
    static func todayLine(_ counts: [String: Int]) -> String {
        let other = counts[EventKind.other.rawValue] ?? 0
        let steps = counts.filter { $0.key != EventKind.other.rawValue && $0.value > 0 }
            .sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
        let total = steps.reduce(0) { $0 + $1.value }
        var line = total == 0 ? "no footsteps" : "\(total) footstep\(total == 1 ? "" : "s") (" + steps.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")"
        if other > 0 { line += ", \(other) other impact\(other == 1 ? "" : "s")" }
        return line
    }
}
