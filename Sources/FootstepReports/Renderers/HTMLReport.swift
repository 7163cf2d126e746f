import FootstepCore
import Foundation

/// Renders a ``ReportDocument`` as one self-contained HTML file: the same content as
/// the PDF, charts as inline SVG, the loudest events playable (`<audio controls>` with
/// the clip embedded as a data URI). No scripts and no external URLs. With `clipLinks`
/// (see ``ReportClipFolder``), every listed event's clip is linked relatively as well.
public struct HTMLReport {
    public var document: ReportDocument
    /// Relative links (`clips/event-12.flac`) by clip path, for clips copied next to the report.
    public var clipLinks: [String: String]

    public init(document: ReportDocument, clipLinks: [String: String] = [:]) {
        self.document = document
        self.clipLinks = clipLinks
    }

    /// Writes the HTML to `path`.
    public func write(to path: String) throws(ReportError) {
        try ReportError.write(Data(render().utf8), to: path)
    }

    /// The complete document.
    public func render() -> String {
        let d = document
        let clock = d.clock
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(e(d.options.title))</title>
            <style>
            body{font-family:"DejaVu Sans",sans-serif;max-width:62em;margin:1.5em auto;padding:0 1em;color:#222}
            h1{margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
            table{border-collapse:collapse;margin:.6em 0;font-size:.85em}td,th{border:1px solid #ddd;padding:.15em .45em;text-align:right;vertical-align:top}
            th{background:#eee}td.l,th.l{text-align:left}tr.hl td{background:#fff4e5}
            .facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;font-size:.9em}.facts dt{color:#666;font-weight:bold}.facts dd{margin:0}
            .figures{display:flex;gap:.6em;flex-wrap:wrap;margin:.8em 0}.figures>div{background:#f2f2f2;padding:.5em 1em;text-align:center;min-width:7em}
            .figures b{display:block;font-size:1.7em}.figures span{font-size:.8em;color:#555}
            .headline{font-size:1.15em;font-weight:bold}.warn{color:#b35900;border-left:4px solid #b35900;padding-left:.6em}
            .muted{color:#666;font-size:.85em}svg{width:100%;height:auto;display:block;margin:.4em 0}
            .loud{display:grid;grid-template-columns:minmax(14em,1fr) 2fr;gap:.3em 1em;border-bottom:1px solid #ddd;padding:.5em 0}
            .loud .thumbs{display:grid;grid-template-columns:1fr 1fr;gap:.5em}.loud p{margin:.1em 0;font-size:.85em}audio{width:100%;margin-top:.3em}
            </style></head><body>
            <h1>\(e(d.options.title))</h1>
            """
        if !d.options.address.isEmpty { html += "<p><strong>\(e(d.options.address))</strong></p>" }
        if !d.options.notes.isEmpty { html += "<p>\(e(d.options.notes))</p>" }
        html += "<dl class=\"facts\">"
        html += fact("Period", d.periodText) + fact("Quiet hours", d.scope.quietHours.description) + fact("Levels", d.scope.calibrationLabel)
        html += fact("Generated", "\(clock.dateTime(d.options.generatedAt)) (\(d.scope.timeZone.identifier))") + fact("Produced by", d.provenance)
        html += "</dl>"
        if !d.scope.calibrated { html += "<p class=\"warn\">\(e(d.calibrationStatement))</p>" }

        html += "<h2>At a glance</h2><p class=\"headline\">\(e(d.headline))</p><div class=\"figures\">"
        for figure in d.keyFigures { html += "<div><b>\(e(figure.value))</b><span>\(e(figure.label))</span></div>" }
        html += "</div>" + svg(width: 720, height: 220, label: "events per night") { d.nightChart.draw(on: $0, x: 0, y: 0, width: 720, height: 220) }
        if let coverage = d.coverageStatement {
            html += "<h2>Coverage</h2><p>\(e(coverage))</p>"
            if let outages = d.outageTable { html += table(outages) }
        }
        if !d.statistics.nights.isEmpty {
            html += "<h2>Nights</h2><p class=\"muted\">Quiet hours \(e(d.scope.quietHours.description)); levels \(e(d.scope.levelUnit)), \(e(d.scope.calibrationLabel)). * = only part of the night lies in the report period.</p>"
            html += table(d.nightTable)
        }
        if d.reviewable {
            let unreviewed = d.nobodyReviewed
            html += "<h2>Review</h2><p class=\"\(unreviewed ? "warn" : "muted")\">\(e(d.reviewStatement))</p>"
            if !d.statistics.nights.isEmpty { html += table(d.reviewTable) }
            if let rejected = d.rejectedTable {
                html += "<h3>Rejected on review</h3><p class=\"muted\">Left out of every count; kept in the evidence chain.</p>" + table(rejected)
            }
        }
        if let diary = d.diaryTable {
            html += "<h2>Diary and notes</h2><p class=\"muted\">Diary entries and marks (footstepctl diary, footstepctl mark), session notes and event notes, in time order; highlighted: marks set while it happened.</p>" + table(diary)
        }
        if let steps = d.loudestFootstepTable {
            html += "<h2>Loudest footsteps</h2><p class=\"muted\">The ten footsteps with the highest LAFmax (\(e(d.scope.levelUnit))); the loudest events of any kind follow.\(d.revisionNote == nil ? "" : " A type marked * was revised (see the event list).")</p>" + table(steps)
        }
        html += loudest()
        if d.equipment != nil {
            html += "<h2>Equipment and calibration</h2><dl class=\"facts\">" + d.equipmentFacts.map { fact($0.label, $0.value) }.joined() + "</dl>"
            for warning in d.noiseFloorWarnings { html += "<p class=\"warn\">\(e(warning))</p>" }
        }
        if d.integrity != nil {
            html += "<h2>Integrity</h2><dl class=\"facts\">" + d.integrityFacts.map { fact($0.label, $0.value) }.joined() + "</dl>"
        }
        html += "<h2>Summary</h2><dl class=\"facts\">" + d.summaryFacts.map { fact($0.label, $0.value) }.joined() + "</dl>"
        html += "<h2>Rule checks</h2><p class=\"\(d.scope.calibrated ? "muted" : "warn")\">\(e(d.calibrationStatement))</p>" + table(d.ruleTable)
        html += svg(width: 720, height: 230, label: "footsteps by hour of day") { d.hourChart.draw(on: $0, x: 0, y: 0, width: 720, height: 230) }
        if d.statistics.days.count > 1 {
            html += svg(width: 720, height: 200, label: "events per day") { d.dayChart.draw(on: $0, x: 0, y: 0, width: 720, height: 200) }
        }
        if !d.statistics.hourlyLevels.isEmpty {
            html += "<details><summary>Levels per hour (\(d.statistics.hourlyLevels.count) hours)</summary>" + table(d.hourlyLevelTable) + "</details>"
        }
        let worst = d.nightsWithWorstHour
        if !worst.isEmpty {
            html += "<h2>Worst hour of each night, minute by minute</h2><p class=\"muted\">The clock hour with the most footsteps (without footsteps: the highest LAeq), one row per minute, \(e(d.scope.levelUnit)), \(e(d.scope.calibrationLabel)). LCFmax is measured per event: the column gives the highest of the minute's events.</p>"
            for night in worst {
                guard let hour = night.worstHour else { continue }
                html += "<details><summary>\(e(d.worstHourTitle(night, hour)))</summary>" + table(d.worstHourTable(hour)) + "</details>"
            }
        }
        let nights = d.timelineNights
        if !nights.isEmpty {
            html += "<h2>Night timelines</h2>" + svg(width: 720, height: 14, label: "legend") { LevelTimelineChart.legend(on: $0, x: 0, y: 10) }
            for night in nights {
                html += svg(width: 720, height: 170, label: "levels of the night of \(night.date)") { d.timelineChart(night).draw(on: $0, x: 0, y: 0, width: 720, height: 170) }
            }
        }
        if !d.events.isEmpty {
            html += "<h2>\(e(d.listHeading))</h2>"
            if let note = d.listNote { html += "<p class=\"muted\">\(e(note))</p>" }
            if let note = d.revisionNote { html += "<p class=\"muted\">\(e(note))</p>" }
            if !clipLinks.isEmpty {
                html += "<p class=\"muted\">Clip names are links to the copies in the <code>\(ReportClipFolder.folderName)</code> folder next to this file.</p>"
            }
            var events = d.eventTable
            for (index, event) in d.listedEvents.enumerated() {
                if let path = event.clip?.path, let link = clipLinks[path] { events.links[index] = link }
            }
            html += table(events)
        }
        html += "<p class=\"muted\">Generated \(e(clock.dateTime(d.options.generatedAt))) by footstepd \(e(d.options.softwareVersion)).</p></body></html>\n"
        return html
    }

    private func loudest() -> String {
        let d = document
        guard !d.loudest.isEmpty else { return "" }
        var html = "<h2>Loudest events</h2><p class=\"muted\">Play each clip; the waveform marks the impact in red, the spectrogram runs from 25 Hz (bottom) to 4 kHz on a log scale.</p>"
        for (index, item) in d.loudest.enumerated() {
            let lines = d.loudestLines(item, rank: index + 1)
            html += "<div class=\"loud\"><div><p><strong>\(e(lines[0]))</strong></p>" + lines.dropFirst().map { "<p>\(e($0))</p>" }.joined()
            if let audio = item.audio, let encoded = audio.encoded {
                html += "<audio controls=\"controls\" preload=\"none\" src=\"data:\(audio.mimeType);base64,\(encoded.base64EncodedString())\"></audio>"
            }
            if let path = item.event.clip?.path, let link = clipLinks[path] {
                html += "<p><a href=\"\(e(link))\">\(e((path as NSString).lastPathComponent))</a></p>"
            }
            html += "</div><div class=\"thumbs\">"
            if let thumbnail = item.thumbnail {
                html += svg(width: 300, height: 90, label: "waveform") { ThumbnailChart.waveform(thumbnail, on: $0, x: 0, y: 0, width: 300, height: 90) }
                html += svg(width: 300, height: 90, label: "spectrogram") { ThumbnailChart.spectrogram(thumbnail, on: $0, x: 0, y: 0, width: 300, height: 90) }
            } else {
                html += "<p class=\"muted\">clip not available</p>"
            }
            html += "</div></div>"
        }
        return html
    }

    private func svg(width: Double, height: Double, label: String, _ draw: (SVGCanvas) -> Void) -> String {
        let canvas = SVGCanvas(width: width, height: height, label: label)
        draw(canvas)
        return canvas.finish()
    }

    private func table(_ table: ReportTable) -> String {
        var html = "<table><tr>"
        for column in table.columns { html += column.numeric ? "<th>\(e(column.title))</th>" : "<th class=\"l\">\(e(column.title))</th>" }
        html += "</tr>"
        for (index, row) in table.rows.enumerated() {
            html += table.highlighted.contains(index) ? "<tr class=\"hl\">" : "<tr>"
            for (column, cell) in row.enumerated() {
                var content = e(cell)
                if column == table.linkColumn, let link = table.links[index] { content = "<a href=\"\(e(link))\">\(content)</a>" }
                html += table.columns[column].numeric ? "<td>\(content)</td>" : "<td class=\"l\">\(content)</td>"
            }
            html += "</tr>"
        }
        return html + "</table>"
    }

    private func fact(_ label: String, _ value: String) -> String { "<dt>\(e(label))</dt><dd>\(e(value))</dd>" }
    private func e(_ text: String) -> String { HTMLText.escape(text) }
}
