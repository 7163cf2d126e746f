import ArgumentParser
import FootstepAnalysis
import FootstepCore
import FootstepReports
import Foundation

/// `footstepctl report --audio FILE… --start TIME`: analyses recordings (the same
/// pipeline as `analyze`) and places their events in time, for a report without a store.
struct ReportRecordings {
    let command: FootstepCtl.Report
    let settings: ReportSettings

    func load() throws -> ReportInputSet {
        let zone = command.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        guard let start = command.start.flatMap(formatter.date(from:)) else {
            throw ValidationError("--start must be a local time like 2026-11-20T22:00:00")
        }
        var configuration = AnalysisConfiguration()
        configuration.calibrationOffsetDB = command.calibration
        var events: [ReportEvent] = []
        var levels: [ReportLevelInterval] = []
        var offset = start
        for file in command.audioFiles {
            let result = try FileAnalysis.analyse(path: file, configuration: configuration)
            if let error = result.sourceError { FileHandle.standardError.write(Data("footstepctl: \(error)\n".utf8)) }
            let base = offset
            events += result.events.map {
                ReportEvent(
                    timestamp: base.addingTimeInterval($0.onsetSeconds), duration: $0.duration, kind: $0.kind, type: $0.type,
                    confidence: $0.confidence, intensity: $0.intensity, laMax: $0.laMax, lcMax: $0.lcMax, sel: $0.sel)
            }
            let rate = Double(result.format.sampleRate)
            levels += result.intervals.map {
                ReportLevelInterval(
                    start: base.addingTimeInterval(Double($0.startFrame) / rate), seconds: Double($0.frames) / rate, laeq: $0.laeq,
                    lceq: $0.lceq, lafMax: $0.lafMax, la90: $0.la90)
            }
            offset = offset.addingTimeInterval(result.durationSeconds)
        }
        let calibration = command.calibration != 0 ? ReportCalibration(offsetDB: command.calibration, measuredAt: start, method: "offset given on the command line") : nil
        let scope = ReportScope(from: start, to: offset, timeZone: zone, quietHours: settings.quietHours, calibration: calibration)
        let name = (command.audioFiles[0] as NSString).lastPathComponent
        return ReportInputSet(
            events: events, levels: levels, bouts: [], scope: scope,
            source: "recordings " + command.audioFiles.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "),
            baseName: "footstep-report-" + ((name as NSString).deletingPathExtension))
    }
}
