import CCairo
import FootstepCore
import Foundation

/// Renders a ``ReportDocument`` as a PDF through cairo: a title page with the answer
/// at a glance, the summary and rule checks, charts, the nights, a level timeline per
/// night, the loudest events with waveform and spectrogram, and the event list.
public struct PDFReport {
    public var document: ReportDocument

    public init(document: ReportDocument) {
        self.document = document
    }

    /// Writes the PDF to `path`.
    ///
    /// - Throws: ``ReportError/cannotWrite(path:reason:)`` when cairo cannot create or finish the file.
    public func write(to path: String) throws(ReportError) {
        let (width, height) = document.options.paper.size
        guard let surface = cairo_pdf_surface_create(path, width, height) else {
            throw .cannotWrite(path: path, reason: "cairo could not create a PDF surface")
        }
        defer { cairo_surface_destroy(surface) }
        if cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS {
            throw .cannotWrite(path: path, reason: String(cString: cairo_status_to_string(cairo_surface_status(surface))))
        }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, document.options.title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "footstepd \(document.options.softwareVersion)")
        guard let context = cairo_create(surface) else { throw .cannotWrite(path: path, reason: "cairo could not create a context") }
        defer { cairo_destroy(context) }

        let layout = PDFLayout(canvas: CairoCanvas(context: context), paper: document.options.paper)
        lay(out: layout)
        let clock = document.clock
        layout.render(footer: "\(document.options.title) · \(document.periodText) · generated \(clock.dateTime(document.options.generatedAt).prefix(16))", context: context)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        if status != CAIRO_STATUS_SUCCESS {
            throw .cannotWrite(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
    }

    private func lay(out layout: PDFLayout) {
        titlePage(layout)
        layout.pageBreak()
        summary(layout)
        timelines(layout)
        loudest(layout)
        hourlyLevels(layout)
        worstHours(layout)
        eventList(layout)
    }

    private func titlePage(_ layout: PDFLayout) {
        let d = document
        let clock = d.clock
        layout.place(height: 34) { canvas, y in
            canvas.text(d.options.title, x: layout.margin, y: y + 22, size: 20, colour: .text, anchor: .start, bold: true)
        }
        if !d.options.address.isEmpty { layout.paragraph(d.options.address, size: 11) }
        if !d.options.notes.isEmpty { layout.paragraph(d.options.notes, size: 9, colour: .muted) }
        layout.space(6)
        layout.fact("Period", d.periodText)
        layout.fact("Quiet hours", d.scope.quietHours.description)
        layout.fact("Levels", d.scope.calibrationLabel)
        layout.fact("Generated", "\(clock.dateTime(d.options.generatedAt)) (\(d.scope.timeZone.identifier))")
        layout.fact("Produced by", d.provenance)
        layout.space(8)
        if !d.scope.calibrated {
            layout.paragraph(d.calibrationStatement, size: 8.5, bold: false, colour: .warning)
            layout.space(4)
        }
        layout.heading("At a glance")
        layout.paragraph(d.headline, size: 10.5, bold: true)
        layout.space(6)
        let figures = d.keyFigures
        layout.place(height: 50) { canvas, y in
            let boxWidth = layout.contentWidth / Double(figures.count)
            for (index, figure) in figures.enumerated() {
                let x = layout.margin + Double(index) * boxWidth
                canvas.rectangle(x: x + 2, y: y, width: boxWidth - 4, height: 44, fill: ReportColour(hex: "#f2f2f2"))
                canvas.text(figure.value, x: x + boxWidth / 2, y: y + 22, size: 16, colour: .text, anchor: .middle, bold: true)
                canvas.text(figure.label, x: x + boxWidth / 2, y: y + 36, size: 7, colour: .muted, anchor: .middle, bold: false)
            }
        }
        layout.space(8)
        let chart = d.nightChart
        layout.place(height: 190) { canvas, y in chart.draw(on: canvas, x: layout.margin, y: y, width: layout.contentWidth, height: 180) }
        let worst = d.statistics.nights.max { $0.events < $1.events }
        if let worst, worst.events > 0 {
            layout.paragraph(
                "Worst night: \(worst.date) with \(worst.footsteps) footsteps and \(worst.otherEvents) other impacts"
                    + (worst.firstEvent.map { ", from \(clock.time($0).prefix(5))" } ?? "")
                    + (worst.lastEvent.map { " to \(clock.time($0).prefix(5))" } ?? "")
                    + (worst.loudestLAFmax.map { String(format: ", loudest %.1f %@.", $0, d.scope.levelUnit) } ?? "."),
                size: 9)
        }
        if let coverage = d.coverageStatement {
            layout.heading("Coverage", size: 12)
            layout.paragraph(coverage, size: 8.5)
            if let outages = d.outageTable { layout.table(outages, size: 7) }
        }
        if !d.statistics.nights.isEmpty {
            layout.heading("Nights", size: 12)
            layout.paragraph("One row per night: the quiet hours \(d.scope.quietHours) starting on the date shown (* = only part of the night lies in the report period). Levels in \(d.scope.levelUnit), \(d.scope.calibrationLabel). Highlighted: nights with events. The loudest events can be heard in the HTML report.", size: 7.5, colour: .muted)
            layout.table(d.nightTable, size: 7)
        }
        if d.reviewable {
            layout.heading("Review", size: 12)
            layout.paragraph(d.reviewStatement, size: 8.5, colour: d.nobodyReviewed ? .warning : .text)
            if !d.statistics.nights.isEmpty {
                layout.paragraph("Events of each night's quiet hours a person confirmed, rejected or has not reviewed. Highlighted: nights with events nobody has reviewed.", size: 7.5, colour: .muted)
                layout.table(d.reviewTable, size: 7)
            }
            if let rejected = d.rejectedTable {
                layout.paragraph("Rejected on review (left out of every count):", size: 8.5, bold: true)
                layout.table(rejected, size: 7)
            }
        }
    }

    private func summary(_ layout: PDFLayout) {
        let d = document
        layout.heading("Summary")
        for fact in d.summaryFacts { layout.fact(fact.label, fact.value, labelWidth: 120) }
        if let diary = d.diaryTable {
            layout.heading("Diary and notes")
            layout.paragraph("Diary entries and marks (footstepctl diary, footstepctl mark), session notes and event notes, in time order; highlighted: marks set while it happened.", size: 8, colour: .muted)
            layout.table(diary, size: 7.5)
        }
        if d.equipment != nil {
            layout.heading("Equipment and calibration")
            for fact in d.equipmentFacts { layout.fact(fact.label, fact.value, labelWidth: 120) }
            for warning in d.noiseFloorWarnings { layout.paragraph(warning, size: 8, colour: .warning) }
        }
        if d.integrity != nil {
            layout.heading("Integrity")
            for fact in d.integrityFacts { layout.fact(fact.label, fact.value, labelWidth: 120) }
        }
        layout.heading("Rule checks")
        layout.paragraph(d.calibrationStatement, size: 8, colour: d.scope.calibrated ? .muted : .warning)
        layout.space(3)
        layout.table(d.ruleTable)
        let hour = d.hourChart
        layout.place(height: 180) { canvas, y in hour.draw(on: canvas, x: layout.margin, y: y, width: layout.contentWidth, height: 172) }
        if d.statistics.days.count > 1 {
            let day = d.dayChart
            layout.place(height: 170) { canvas, y in day.draw(on: canvas, x: layout.margin, y: y, width: layout.contentWidth, height: 162) }
        }
    }

    private func timelines(_ layout: PDFLayout) {
        let d = document
        let nights = d.timelineNights
        guard !nights.isEmpty else { return }
        layout.pageBreak()
        layout.heading("Night timelines")
        layout.paragraph("Levels minute by minute; each event is a dot at its LAFmax and a tick on the time axis; grey bands are time not recorded.", size: 8, colour: .muted)
        layout.place(height: 14) { canvas, y in LevelTimelineChart.legend(on: canvas, x: layout.margin, y: y + 9) }
        for night in nights {
            let chart = d.timelineChart(night)
            layout.place(height: 150) { canvas, y in chart.draw(on: canvas, x: layout.margin, y: y, width: layout.contentWidth, height: 144) }
        }
    }

    private func hourlyLevels(_ layout: PDFLayout) {
        let d = document
        guard !d.statistics.hourlyLevels.isEmpty else { return }
        layout.pageBreak()
        layout.heading("Levels per hour")
        guard d.statistics.hourlyLevels.count <= 200 else {
            layout.paragraph("\(d.statistics.hourlyLevels.count) hours: too many to print; the JSON report lists them (hourlyLevels).", size: 8, colour: .muted)
            return
        }
        layout.paragraph("\(d.scope.levelUnit), \(d.scope.calibrationLabel). LAeq and LCeq are energy averages of the minutes, LA90 their mean.", size: 8, colour: .muted)
        layout.table(d.hourlyLevelTable, size: 7)
    }

    private func worstHours(_ layout: PDFLayout) {
        let d = document
        let nights = d.worstHourNights
        guard !nights.isEmpty else { return }
        layout.pageBreak()
        layout.heading("Worst hour of each night, minute by minute")
        let shown = nights.count < d.nightsWithWorstHour.count
            ? " The \(nights.count) nights whose worst hour had the most footsteps; the HTML and JSON reports give every night's."
            : ""
        layout.paragraph(
            "The clock hour with the most footsteps (without footsteps: the highest LAeq), one row per minute, \(d.scope.levelUnit), \(d.scope.calibrationLabel). LCFmax is measured per event: the column gives the highest of the minute's events. Minutes with footsteps are shaded.\(shown)",
            size: 8, colour: .muted)
        for night in nights {
            guard let hour = night.worstHour else { continue }
            layout.paragraph(d.worstHourTitle(night, hour), size: 9, bold: true)
            layout.table(d.worstHourTable(hour), size: 7)
        }
    }

    private func loudest(_ layout: PDFLayout) {
        let d = document
        guard !d.loudest.isEmpty else { return }
        layout.pageBreak()
        if let steps = d.loudestFootstepTable {
            layout.heading("Loudest footsteps")
            layout.paragraph("The ten footsteps with the highest LAFmax (\(d.scope.levelUnit)); the loudest events of any kind follow." + (d.revisionNote == nil ? "" : " A type marked * was revised (see the event list)."), size: 8, colour: .muted)
            layout.table(steps, size: 7.5)
        }
        layout.heading("Loudest events")
        layout.paragraph("Each with its clip's waveform (the impact marked red) and spectrogram (log frequency, 25 Hz to 4 kHz). Play the clips from the HTML report or the clip files named here.", size: 8, colour: .muted)
        for (index, item) in d.loudest.enumerated() {
            let lines = d.loudestLines(item, rank: index + 1)
            let height = max(78, Double(lines.count) * 11 + 6)
            layout.place(height: height) { canvas, y in
                for (line, text) in lines.enumerated() {
                    canvas.text(text, x: layout.margin, y: y + 10 + Double(line) * 11, size: line == 0 ? 8.5 : 7.5, colour: line == 0 ? .text : .muted, anchor: .start, bold: line == 0)
                }
                let x = layout.margin + layout.contentWidth * 0.42
                let width = layout.contentWidth * 0.29 - 4
                if let thumbnail = item.thumbnail {
                    ThumbnailChart.waveform(thumbnail, on: canvas, x: x, y: y + 2, width: width, height: 66)
                    ThumbnailChart.spectrogram(thumbnail, on: canvas, x: x + width + 8, y: y + 2, width: width, height: 66)
                } else {
                    canvas.text("clip not available (not kept, or its file is gone)", x: x, y: y + 30, size: 8, colour: .muted, anchor: .start, bold: false)
                }
                canvas.line(layout.margin, y + height - 3, layout.margin + layout.contentWidth, y + height - 3, colour: .grid, width: 0.5)
            }
        }
    }

    private func eventList(_ layout: PDFLayout) {
        let d = document
        guard !d.events.isEmpty else { return }
        layout.pageBreak()
        layout.heading(d.listHeading)
        var note = "Local times (\(d.scope.timeZone.identifier)); levels \(d.scope.levelUnit), \(d.scope.calibrationLabel)."
        if let listNote = d.listNote { note += " " + listNote }
        if let revisionNote = d.revisionNote { note += " " + revisionNote }
        layout.paragraph(note, size: 8, colour: .muted)
        layout.table(d.eventTable(clipNames: false), size: 7)
    }
}
