import ArgumentParser
import FootstepAnalysis
import FootstepCore
import FootstepReports
import Foundation

extension FootstepCtl {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an HTML evidence report for recordings.",
            discussion: """
                Analyses each --audio file (the same pipeline as `analyze`), places its events \
                in time from --start (the wall-clock time the first recording began; files \
                follow each other), and writes a self-contained HTML report: summary, footsteps \
                by hour and day, a table per night, rule checks (WHO night LAFmax, Korean \
                inter-floor standard) and the event list.

                Example:
                  footstepctl report --audio night.flac --start 2026-11-20T22:00:00 -o night.html
                """)

        @Option(name: .customLong("audio"), help: "A recording to report on (repeatable; in time order).", completion: .file())
        var audioFiles: [String]

        @Option(help: "Local start time of the first recording (ISO 8601, e.g. 2026-11-20T22:00:00).")
        var start: String

        @Option(help: "Time zone of the flat (IANA name).")
        var timeZone: String = TimeZone.current.identifier

        @Option(help: "Quiet hours for the night tables and rules.")
        var quietHours: String = "23:00-07:00"

        @Option(help: "Calibration offset in dB (0 = uncalibrated, relative levels).")
        var calibration: Double = 0

        @Option(help: "Report title.")
        var title: String = "Footstep and impact noise report"

        @Option(help: "Address printed on the report.")
        var address: String = ""

        @Option(name: .shortAndLong, help: "HTML file to write.", completion: .file())
        var output: String

        func validate() throws {
            guard !audioFiles.isEmpty else { throw ValidationError("Name at least one --audio file.") }
            guard TimeZone(identifier: timeZone) != nil else { throw ValidationError("Unknown time zone '\(timeZone)'.") }
            guard DailyWindow(parsing: quietHours) != nil else { throw ValidationError("--quiet-hours must look like 23:00-07:00.") }
            guard startDate != nil else { throw ValidationError("--start must be a local time like 2026-11-20T22:00:00.") }
        }

        var startDate: Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: timeZone)
            formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
            return formatter.date(from: start)
        }

        func run() throws {
            var configuration = AnalysisConfiguration()
            configuration.calibrationOffsetDB = calibration
            var events: [ReportEvent] = []
            var levels: [ReportLevelInterval] = []
            var offset = startDate!
            for file in audioFiles {
                let result = try FileAnalysis.analyse(path: file, configuration: configuration)
                if let error = result.sourceError { FileHandle.standardError.write(Data("footstepctl: \(error)\n".utf8)) }
                let base = offset
                events += result.events.map {
                    ReportEvent(timestamp: base.addingTimeInterval($0.onsetSeconds), kind: $0.kind, type: $0.type, laMax: $0.laMax, lcMax: $0.lcMax, confidence: $0.confidence)
                }
                let rate = Double(result.format.sampleRate)
                levels += result.intervals.map {
                    ReportLevelInterval(start: base.addingTimeInterval(Double($0.startFrame) / rate), seconds: Double($0.frames) / rate, laeq: $0.laeq, lceq: $0.lceq, lafMax: $0.lafMax, la90: $0.la90)
                }
                offset = offset.addingTimeInterval(result.durationSeconds)
            }
            let scope = ReportScope(
                from: startDate!, to: offset, timeZone: TimeZone(identifier: timeZone)!,
                quietHours: DailyWindow(parsing: quietHours)!, calibrated: calibration != 0)
            let statistics = EvidenceStatistics(events: events, levels: levels, scope: scope)
            let rules = RuleCheck.standardChecks(events: events, levels: levels, scope: scope)
            let html = HTMLReport(title: title, address: address, events: events, statistics: statistics, rules: rules).render()
            try html.write(toFile: output, atomically: true, encoding: .utf8)
            print("wrote \(output): \(statistics.footsteps) footsteps (\(statistics.footstepsInQuietHours) in quiet hours), \(statistics.otherEvents) other impacts, \(statistics.nights.count) night(s)")
        }
    }
}
