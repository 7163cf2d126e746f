import ArgumentParser
import FootstepCore
import FootstepStore
import Foundation
import ZIPFoundation

extension FootstepCtl {
    struct Bundle: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an evidence bundle for a period: reports, clips, JSON export and a SHA-256 manifest.",
            discussion: """
                Reads footstepd's database read-only and writes, into a new directory or a .zip:
                  report/          the evidence report as PDF, HTML and CSV
                  clips/           every event's audio clip
                  audio/           the full recordings of the period (with --include-audio)
                  export.json      the period's rows (footstepctl export --from --to)
                  integrity.txt    the hash-chain and file checks at the time of bundling
                  README.txt       what is in the bundle and how to check it
                  MANIFEST.sha256  the SHA-256 of every file, so `sha256sum -c MANIFEST.sha256` \
                (or `footstepctl verify --bundle`) proves nothing changed since.

                Examples:
                  footstepctl bundle --from 2026-11-01 --to 2026-12-01 -o evidence-2026-11.zip
                  footstepctl bundle --from -7d --to now --include-audio -o /media/usb/evidence
                """)

        @Option(parsing: .unconditional, help: ArgumentHelp("Start of the period (\(TimeArgument.help)).", valueName: "TIME"))
        var from: TimeArgument

        @Option(parsing: .unconditional, help: ArgumentHelp("End of the period, excluded.", valueName: "TIME"))
        var to: TimeArgument

        @Option(name: .shortAndLong, help: "A new directory, or a file ending in .zip.", completion: .file())
        var output: String

        @Flag(help: "Also copy the period's full audio recordings (large).")
        var includeAudio = false

        @Option(help: "Report formats to include, comma-separated (pdf, html, csv, json).")
        var reportFormat: String = "pdf,html,csv"

        @Option(help: "Time zone of the flat for the report (IANA name; default the sessions').")
        var timeZone: String?

        @Flag(help: "No progress lines on standard error.")
        var quiet = false

        @OptionGroup var store: StoreLocationOptions

        var isZip: Bool { output.lowercased().hasSuffix(".zip") }

        func validate() throws {
            guard from.date < to.date else { throw ValidationError("--to must be after --from.") }
            if FileManager.default.fileExists(atPath: output) {
                let empty = (try? FileManager.default.contentsOfDirectory(atPath: output).isEmpty) ?? false
                guard !isZip, empty else { throw ValidationError("\(output) already exists; name a new directory or .zip file.") }
            }
        }

        func run() throws {
            let database = try store.openReadOnly()
            let export = try database.exportRange(
                from: from.date, to: to.date, appVersion: FootstepVersion.current, exportedAt: ExportClock.now)
            let directory = isZip ? "\(output).partial-\(getpid())" : output
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { if isZip { try? FileManager.default.removeItem(atPath: directory) } }

            let quiet = self.quiet
            func progress(_ line: String) { if !quiet { printError("footstepctl bundle: \(line)") } }
            var writer = BundleWriter(directory: directory, export: export, progress: progress)
            try writer.writeExport()
            let events = export.sessions.reduce(0) { $0 + $1.events.count }
            progress("exported \(export.sessions.count) session(s), \(events) event(s); copying their clips")
            try writer.copyClips()
            if includeAudio { try writer.copyAudio() }
            progress("writing the report (\(reportFormat))")
            let reportNote = writeReport(into: writer.path(BundleWriter.reportDirectory), database: database.path)

            progress("hashing the bundle's files for \(BundleManifest.fileName)")
            let hashed = try BundleManifest.hashDirectory(directory)
            try writer.writeIntegrity(chain: try database.verifyChain(), manifest: hashed)
            try writer.writeReadme(reportNote: reportNote)
            try writer.writeManifest(hashed: hashed, adding: ["README.txt", "integrity.txt"])

            if isZip {
                progress("zipping into \(output)")
                try FileManager.default.zipItem(
                    at: URL(fileURLWithPath: directory), to: URL(fileURLWithPath: output), shouldKeepParent: false,
                    compressionMethod: .deflate)
            }
            print("wrote \(output): \(export.sessions.count) session(s), \(events) event(s), \(hashed.count + 2) file(s) in \(BundleManifest.fileName)")
        }

        /// Runs `footstepctl report` for the period into `directory`; a failure is reported
        /// and returned as a note for README.txt (the rest of the evidence is still bundled).
        private func writeReport(into directory: String, database: String) -> String? {
            var arguments = [
                "--database", database, "--period", "\(ExportDate.iso(from.date))..\(ExportDate.iso(to.date))",
                "--format", reportFormat, "--output", directory, "--quiet",
            ]
            if let timeZone { arguments += ["--time-zone", timeZone] }
            do {
                let report = try FootstepCtl.Report.parse(arguments)
                try report.run()
                return nil
            } catch {
                let message = FootstepCtl.Report.message(for: error)
                printError("footstepctl bundle: warning: the report could not be written: \(message)")
                return "the report could not be written (\(message)); run footstepctl report for the period"
            }
        }
    }
}
