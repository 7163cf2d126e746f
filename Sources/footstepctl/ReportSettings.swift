import FootstepConfiguration
import FootstepCore
import Foundation

/// What `footstepctl report` takes from footstepd's configuration file (its
/// `[reports]` section and `paths.state_dir`), with the command line winning.
struct ReportSettings {
    var quietHours: DailyWindow
    var address: String
    var notes: String
    var stateDirectory: String
    var outputDirectory: String
    /// Report sets kept in `outputDirectory` after writing; nil keeps everything.
    var keep: Int?
    /// The configuration file read, or nil when none was.
    var configurationFile: String?
    /// `[capture] microphone` and `placement`, for the equipment page.
    var microphone = ""
    var placement = ""

    /// Resolves the settings. `configurationPath` nil means the default file,
    /// which may be missing (defaults apply); a file named on the command line
    /// must exist. A file that exists must be valid.
    static func resolve(
        configurationPath: String?, quietHours: String?, address: String?, notes: String?, stateDirectory: String?,
        output: String?, keep: Int?
    ) throws -> ReportSettings {
        let path = configurationPath ?? DaemonConfiguration.defaultPath
        var configuration = DaemonConfiguration()
        var read: String?
        if configurationPath != nil || FileManager.default.fileExists(atPath: path) {
            if configurationPath == nil, !FileManager.default.isReadableFile(atPath: path) {
                FileHandle.standardError.write(Data(
                    "footstepctl report: warning: cannot read \(path) (permissions; members of the footstepd group can): using the defaults and the options given\n".utf8))
            } else {
                configuration = try DaemonConfiguration.parse(readConfiguration(path), file: path)
                read = path
            }
        }
        let state = stateDirectory ?? configuration.stateDirectory
        let quiet = try quietHours.map { text in
            guard let window = DailyWindow(parsing: text) else { throw ReportCommandError.badQuietHours(text) }
            return window
        } ?? configuration.reports.quietHours
        // `keep` prunes only the configured directory, or wherever --keep is asked for.
        let configuredDirectory = configuration.reports.directory.flatMap { $0.isEmpty ? nil : $0 } ?? "\(state)/reports"
        return ReportSettings(
            quietHours: quiet, address: address ?? configuration.reports.address, notes: notes ?? configuration.reports.notes,
            stateDirectory: state, outputDirectory: output ?? configuredDirectory,
            keep: keep ?? (output == nil ? configuration.reports.keep : nil), configurationFile: read,
            microphone: configuration.capture.microphone, placement: configuration.capture.placement)
    }

    private static func readConfiguration(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions or not UTF-8)" : "no such file"
            throw ConfigurationError(file: path, key: nil, message: reason)
        }
    }
}

/// Keeps the newest `keep` reports in a directory: a report is the set of
/// files `footstep-report-NAME.{pdf,html,csv,json}` sharing a name; the
/// oldest sets (by their newest file's modification time) are deleted.
enum ReportPruner {
    static let prefix = "footstep-report-"
    static let extensions: Set<String> = ["pdf", "html", "csv", "json"]

    /// Deletes all but the newest `keep` report sets; returns the files deleted.
    @discardableResult
    static func prune(directory: String, keep: Int) -> [String] {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return [] }
        var sets: [String: (modified: Date, files: [String])] = [:]
        for name in names where name.hasPrefix(prefix) {
            let url = URL(fileURLWithPath: name)
            guard extensions.contains(url.pathExtension) else { continue }
            let path = "\(directory)/\(name)"
            let modified = ((try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
            let base = url.deletingPathExtension().lastPathComponent
            var entry = sets[base] ?? (.distantPast, [])
            entry.modified = max(entry.modified, modified)
            entry.files.append(path)
            sets[base] = entry
        }
        let oldest = sets.sorted { ($0.value.modified, $0.key) > ($1.value.modified, $1.key) }.dropFirst(keep)
        var deleted: [String] = []
        for (_, entry) in oldest {
            for file in entry.files where (try? manager.removeItem(atPath: file)) != nil { deleted.append(file) }
        }
        return deleted.sorted()
    }
}
