import ArgumentParser
import FootstepConfiguration
import FootstepCore
import FootstepReports
import FootstepStore
import Foundation

extension FootstepCtl {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the evidence report (PDF, HTML, CSV, JSON) for a period.",
            discussion: """
                Reads footstepd's database read-only (safe while the daemon records: readers never \
                block its writes) and writes the chosen formats into the output directory: a \
                printable PDF (title page, the nights at a glance, rule checks, charts, a level \
                timeline per night, the loudest events with waveform and spectrogram, the event \
                list), a self-contained HTML file with the same content and the loudest clips \
                playable (the clips of all listed events are copied into DIR/clips and linked), a CSV with one row per event and a JSON document of every figure. \
                Prints the paths written.

                Periods: last-night (the latest quiet-hours window that has ended), yesterday, \
                today, week (the seven days before today), or FROM..TO in local time, e.g. \
                2026-11-01..2026-11-30 (TO date inclusive) or 2026-11-20T22:00..2026-11-21T08:00.

                With --audio, reports on recordings instead (analysed like `analyze`, placed in \
                time from --start).

                Examples:
                  footstepctl report --period last-night          (settings from /etc/footstepd/footstepd.toml)
                  footstepctl report --config ./footstepd.toml --period yesterday -o out/
                  footstepctl report --period week --format pdf,html,csv,json --paper letter -o out/
                  footstepctl report --session 3 --database ./footstepd.db --format json -o .
                  footstepctl report --audio night.flac --start 2026-11-20T22:00:00 -o out/
                """)

        @Option(help: "The period: \(ReportPeriod.help). Default: the session's span with --session, else last-night.")
        var period: String?

        @Option(help: "Formats to write, comma-separated: pdf, html, csv, json.")
        var format: String = "pdf,html"

        @Option(
            name: .shortAndLong,
            help: "Directory to write the report files into (created if missing). Default: [reports] directory, else STATE_DIR/reports.",
            completion: .directory)
        var output: String?

        @Option(help: "Only this session (by id, see `footstepctl sessions`).")
        var session: Int64?

        @Option(help: "PDF paper size: a4 or letter.")
        var paper: ReportPaper = .a4

        @Option(help: "The daemon's database file (default STATE_DIR/footstepd.db).", completion: .file())
        var database: String?

        @Option(help: "The daemon's state directory (its StateDirectory). Default: [paths] state_dir, else /var/lib/footstepd.", completion: .directory)
        var stateDir: String?

        @Option(
            help: "footstepd's configuration file: quiet hours, address, notes, output directory and keep come from its [reports] section, the state directory from [paths]. Options given here win. Default: \(DaemonConfiguration.defaultPath) when it exists.",
            completion: .file())
        var config: String?

        @Option(help: "Keep only the newest N reports in the output directory (default: [reports] keep when writing into the configured directory).")
        var keep: Int?

        @Option(help: "Time zone of the flat (IANA name). Default: the session's zone, else the store's latest session's.")
        var timeZone: String?

        @Option(help: "Quiet hours: the nights of the report and the WHO night rule. Default: [reports] quiet_hours, else 23:00-07:00.")
        var quietHours: String?

        @Option(help: "Report title.")
        var title: String = "Footstep and impact noise report"

        @Option(help: "Address printed on the title page. Default: [reports] address.")
        var address: String?

        @Option(help: "Notes printed on the title page. Default: [reports] notes.")
        var notes: String?

        @Option(name: .customLong("rule"), help: ArgumentHelp(ReportRuleArgument.help))
        var rules: [ReportRuleArgument] = []

        @Option(help: "Most events listed in the PDF and HTML: the loudest that many, plus every event with notes (CSV and JSON list all).")
        var maxListed: Int = 500

        @Flag(help: "Print the files written (and timings) as JSON.")
        var json = false

        /// For `bundle`, which writes the report into a staging directory and prints its own summary.
        @Flag(help: .hidden)
        var quiet = false

        @Option(name: .customLong("audio"), help: "Report on this recording instead of the store (repeatable; in time order).", completion: .file())
        var audioFiles: [String] = []

        @Option(help: "With --audio: local start time of the first recording (e.g. 2026-11-20T22:00:00).")
        var start: String?

        @Option(help: "With --audio: calibration offset in dB (0 = uncalibrated).")
        var calibration: Double = 0

        func validate() throws {
            if let quietHours, DailyWindow(parsing: quietHours) == nil { throw ValidationError("--quiet-hours must look like 23:00-07:00.") }
            if let keep, keep < 1 { throw ValidationError("--keep must be at least 1.") }
            if let timeZone, TimeZone(identifier: timeZone) == nil { throw ValidationError("Unknown time zone '\(timeZone)' (use an IANA name like Europe/London).") }
            guard !formats.isEmpty, formats.count == format.split(separator: ",").count else {
                throw ValidationError("--format takes a comma-separated list of pdf, html, csv, json; got '\(format)'.")
            }
            guard maxListed > 0 else { throw ValidationError("--max-listed must be positive.") }
            if !audioFiles.isEmpty, start == nil { throw ValidationError("--audio needs --start, the local time the first recording began.") }
        }

        var formats: [ReportFormat] { format.split(separator: ",").compactMap { ReportFormat(rawValue: $0.trimmingCharacters(in: .whitespaces).lowercased()) } }

        /// The settings after reading the configuration file (the command line wins).
        func settings() throws -> ReportSettings {
            try ReportSettings.resolve(
                configurationPath: config, quietHours: quietHours, address: address, notes: notes, stateDirectory: stateDir,
                output: output, keep: keep)
        }

        func run() throws {
            let clockStart = Date()
            let settings = try settings()
            let input = try audioFiles.isEmpty ? loadStore(settings) : ReportRecordings(command: self, settings: settings).load()
            let loaded = Date()
            let output = settings.outputDirectory
            let options = ReportOptions(
                title: title, address: settings.address, notes: settings.notes, source: input.source, generatedAt: Date(),
                softwareVersion: FootstepVersion.current, paper: paper, rules: rules.map(\.rule), maximumListedEvents: maxListed)
            let document = ReportDocument(
                events: input.events, levels: input.levels, bouts: input.bouts, scope: input.scope, options: options,
                coverage: input.coverage, integrity: input.integrity, equipment: input.equipment, diary: input.diary,
                audio: ReportClipReader.audio(for:))
            let built = Date()
            let (files, clips, clipSeconds) = try ReportWriter(document: document, directory: output, baseName: input.baseName).write(formats)
            let pruned = settings.keep.map { ReportPruner.prune(directory: output, keep: $0) } ?? []
            for failure in clips.failures {
                FileHandle.standardError.write(Data("footstepctl report: clip \(failure.path) not copied: \(failure.reason)\n".utf8))
            }
            if json {
                let output = ReportRunSummary(
                    files: files, clipsCopied: clips.links.count, events: document.events.count,
                    footsteps: document.statistics.footsteps, nights: document.statistics.nights.count, period: input.scope,
                    seconds: ["load": loaded.timeIntervalSince(clockStart), "build": built.timeIntervalSince(loaded), "clips": clipSeconds],
                    deleted: pruned, configuration: settings.configurationFile)
                print(output.json)
            } else if !quiet {
                for file in files { print(file.path) }
                if !pruned.isEmpty, let keep = settings.keep {
                    print("\(pruned.count) older report file(s) deleted: the newest \(keep) report(s) are kept")
                }
                if !clips.links.isEmpty { print("\(clips.links.count) clips copied to \(output)/\(ReportClipFolder.folderName)") }
                print(document.headline)
            }
        }

        private func loadStore(_ settings: ReportSettings) throws -> ReportInputSet {
            let path = database ?? "\(settings.stateDirectory)/footstepd.db"
            guard FileManager.default.fileExists(atPath: path) else { throw ReportCommandError.noDatabase(path) }
            let loader = try ReportLoader(path: path)
            let sessionRecord = try session.map { try loader.session($0) }
            let storeZone = try loader.latestTimeZone()
            let zone = timeZone.flatMap(TimeZone.init(identifier:))
                ?? sessionRecord.flatMap { TimeZone(identifier: $0.timeZone) } ?? storeZone ?? .current
            let quiet = settings.quietHours
            let resolved: ReportPeriod
            if let period {
                guard let value = ReportPeriod.resolve(period, now: Date(), timeZone: zone, quietHours: quiet) else {
                    throw ValidationError("--period '\(period)' is not one of \(ReportPeriod.help).")
                }
                resolved = value
            } else if let sessionRecord {
                let lastData = try loader.database.lastDataTime(session: sessionRecord.id!)
                let end = sessionRecord.endedAt ?? lastData ?? Date()
                resolved = ReportPeriod(from: sessionRecord.startedAt, to: max(end.addingTimeInterval(0.001), sessionRecord.startedAt.addingTimeInterval(1)), label: "session\(sessionRecord.id!)")
            } else {
                resolved = ReportPeriod.resolve("last-night", now: Date(), timeZone: zone, quietHours: quiet)!
            }
            let covered = try loader.sessions(from: resolved.from, to: resolved.to, session: session)
            let scope = ReportScope(
                from: resolved.from, to: resolved.to, timeZone: zone, quietHours: quiet,
                calibration: try loader.calibration(before: resolved.to), sessionId: session)
            return ReportInputSet(
                events: try loader.events(from: resolved.from, to: resolved.to, session: session),
                levels: try loader.levels(from: resolved.from, to: resolved.to, session: session),
                bouts: try loader.bouts(from: resolved.from, to: resolved.to, session: session),
                scope: scope, source: "footstepd store \(path)",
                coverage: try loader.coverage(of: covered, from: resolved.from, to: resolved.to),
                integrity: try loader.integrity(databasePath: URL(fileURLWithPath: path).standardizedFileURL.path),
                diary: try loader.diary(of: covered, from: resolved.from, to: resolved.to),
                equipment: try loader.equipment(
                    of: covered, to: resolved.to, microphone: settings.microphone, placement: settings.placement),
                baseName: ["footstep-report", session.map { "session\($0)" }, period == nil && session != nil ? nil : resolved.label]
                    .compactMap { $0 }.joined(separator: "-"))
        }
    }
}

/// The formats `footstepctl report` writes.
enum ReportFormat: String, CaseIterable, Sendable {
    case pdf
    case html
    case csv
    case json
}

extension ReportPaper: ExpressibleByArgument {}

/// What a report is made from, whichever source it came from.
struct ReportInputSet {
    var events: [ReportEvent]
    var levels: [ReportLevelInterval]
    var bouts: [ReportBout]
    var scope: ReportScope
    var source: String
    /// What was recorded (nil for recordings given with --audio).
    var coverage: ReportCoverage? = nil
    /// The store's hash chain, verified now (nil for recordings).
    var integrity: ReportIntegrity? = nil
    /// Diary entries, marks and session notes (none for recordings).
    var diary: [ReportDiaryItem] = []
    /// Devices, microphone and calibrations (nil for recordings).
    var equipment: ReportEquipment? = nil
    /// File name without extension.
    var baseName: String
}
