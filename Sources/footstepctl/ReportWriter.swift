import FootstepReports
import Foundation

/// Writes a report document in each chosen format into a directory.
struct ReportWriter {
    struct File: Encodable {
        var format: String
        var path: String
        var seconds: Double
        var bytes: Int
    }

    let document: ReportDocument
    let directory: String
    let baseName: String

    /// Writes each format; with HTML, first copies the listed events' clips into `directory/clips/`.
    func write(_ formats: [ReportFormat]) throws -> (files: [File], clips: ReportClipFolder, clipSeconds: Double) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportCommandError.cannotCreateDirectory(directory, error.localizedDescription)
        }
        var clips = ReportClipFolder()
        let copyStart = Date()
        if formats.contains(.html) {
            clips = try ReportClipFolder.copy(clipsOf: document.listedEvents + document.loudest.map(\.event), into: directory)
        }
        let clipSeconds = Date().timeIntervalSince(copyStart)
        var files: [File] = []
        for format in formats {
            let path = URL(fileURLWithPath: directory).appendingPathComponent("\(baseName).\(format.rawValue)").path
            let start = Date()
            switch format {
            case .pdf: try PDFReport(document: document).write(to: path)
            case .html: try HTMLReport(document: document, clipLinks: clips.links).write(to: path)
            case .csv: try CSVReport(document: document).write(to: path)
            case .json: try JSONReport(document: document).write(to: path)
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            files.append(File(format: format.rawValue, path: path, seconds: Date().timeIntervalSince(start), bytes: bytes))
        }
        return (files, clips, clipSeconds)
    }
}

/// `footstepctl report --json` output.
struct ReportRunSummary: Encodable {
    var files: [ReportWriter.File]
    /// Clips copied into DIR/clips for the HTML's links.
    var clipsCopied: Int
    var events: Int
    var footsteps: Int
    var nights: Int
    var from: String
    var to: String
    var seconds: [String: Double]
    /// Older report files deleted to keep the newest `keep` reports.
    var deleted: [String]
    /// The configuration file the settings came from, if one was read.
    var configuration: String?

    init(
        files: [ReportWriter.File], clipsCopied: Int, events: Int, footsteps: Int, nights: Int, period: ReportScope,
        seconds: [String: Double], deleted: [String] = [], configuration: String? = nil
    ) {
        self.files = files
        self.deleted = deleted
        self.configuration = configuration
        self.clipsCopied = clipsCopied
        self.events = events
        self.footsteps = footsteps
        self.nights = nights
        let iso = ISO8601DateFormatter()
        from = iso.string(from: period.from)
        to = iso.string(from: period.to)
        self.seconds = seconds
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
