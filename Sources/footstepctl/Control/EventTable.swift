import FootstepCore
import FootstepWire
import Foundation

/// The human forms of events: a table, one line (live), and a detail view.
enum EventTable {
    static func print(_ events: [EventResponse], terminal: Terminal) {
        var table = TextTable([
            .init(header: "ID", right: true), .init(header: "TIME"), .init(header: "SESSION", right: true),
            .init(header: "TYPE"), .init(header: "CONF", right: true), .init(header: "INTENSITY"),
            .init(header: "LAFMAX", right: true), .init(header: "DURATION", right: true), .init(header: "CLIP"),
            .init(header: "REVIEW"), .init(header: "NOTES", flexible: true),
        ])
        for event in events {
            table.append([
                String(event.id), HumanFormat.time(event.timestamp), String(event.sessionId), label(event),
                HumanFormat.fraction(event.confidence), event.intensity.rawValue, HumanFormat.decibels(event.laMax),
                String(format: "%.2f s", event.duration), event.hasClip ? "yes" : "-", event.review?.rawValue ?? "-",
                event.notes,
            ])
        }
        table.render(width: terminal.width).forEach { Swift.print($0) }
    }

    /// `footstep/stomping` or `other`.
    static func label(_ event: EventResponse) -> String {
        event.kind.label(event.type)
    }

    /// The unit of stored event levels: absolute once the microphone is
    /// calibrated (a `levels.calibration_offset`), else relative to full scale.
    static func levelUnit(calibrated: Bool) -> String { calibrated ? "dB(A)" : "dB(A) rel." }

    /// One line per event for `watch`: time, id, type, confidence, level, intensity.
    static func line(_ event: EventResponse, terminal: Terminal, unit: String) -> String {
        let type = label(event).padding(toLength: 11, withPad: " ", startingAt: 0)
        let colour: Terminal.Colour =
            switch event.intensity {
            case .low: .green
            case .medium: .orange
            case .high: .red
            }
        let text =
            "\(HumanFormat.clock(event.timestamp))  #\(event.id)  \(terminal.paint(type, event.kind == .footstep ? .bold : .grey))"
            + "  conf \(HumanFormat.fraction(event.confidence))  LAFmax \(HumanFormat.decibels(event.laMax)) \(unit)  "
            + terminal.paint(event.intensity.rawValue, colour)
        return text
    }

    /// The line for `watch` when an event comes again with a new label:
    /// `12:00:03  #41  revised  other → heel_strike  conf 0.72`.
    static func revisionLine(_ event: EventResponse, was previous: String, terminal: Terminal) -> String {
        let type = label(event)
        return "\(HumanFormat.clock(event.timestamp))  #\(event.id)  \(terminal.paint("revised", .grey))  \(previous) → "
            + "\(terminal.paint(type, event.kind == .footstep ? .bold : .grey))  conf \(HumanFormat.fraction(event.confidence))"
    }

    static func printDetail(_ event: EventResponse) {
        var rows: [(String, String)] = [
            ("id", String(event.id)), ("session", String(event.sessionId)),
            ("time", HumanFormat.time(event.timestamp) + " (" + APIJSON.formatDate(event.timestamp) + ")"),
            ("duration", String(format: "%.3f s", event.duration)),
            ("kind", event.kind.rawValue + (event.revisedFrom.map { " (revised: stored as \($0))" } ?? "")),
            ("type", event.type.rawValue),
            ("confidence", HumanFormat.fraction(event.confidence)),
            ("intensity", event.intensity.rawValue), ("LAFmax", HumanFormat.decibels(event.laMax) + " dB(A)"),
        ]
        if let lc = event.lcMax { rows.append(("LCFmax", HumanFormat.decibels(lc) + " dB(C)")) }
        rows.append(("SEL", HumanFormat.decibels(event.sel) + " dB(A)"))
        rows.append(("peak", HumanFormat.decibels(event.peakDBFS) + " dBFS"))
        if let background = event.backgroundLA { rows.append(("background", HumanFormat.decibels(background) + " dB(A)")) }
        if let bout = event.boutId { rows.append(("bout", String(bout))) }
        rows.append(("review", event.review?.rawValue ?? "not reviewed (footstepctl events confirm|reject|relabel)"))
        rows.append(("clip", event.hasClip ? "yes (footstepctl clip \(event.id) -o FILE)" : "none"))
        rows.append(("hash", event.hash))
        if !event.notes.isEmpty { rows.append(("notes", event.notes)) }
        HumanFormat.labelled(rows).forEach { Swift.print($0) }
    }
}
