import Foundation

/// The clip files of a report's listed events, copied next to the HTML report
/// (`DIR/clips/`) so every listed event with a clip can be played from a relative link,
/// not only the ten loudest embedded in the page. Copies, never links: the evidence
/// files stay untouched whatever happens to the report folder.
public struct ReportClipFolder: Sendable {
    /// The folder name relative to the report, `clips`.
    public static let folderName = "clips"

    /// Relative link (`clips/event-12.flac`, percent-encoded) by the clip's original path.
    public private(set) var links: [String: String] = [:]
    /// Clips that could not be copied, with the reason (missing file, unreadable…).
    public private(set) var failures: [(path: String, reason: String)] = []

    public init() {}

    /// Copies the clip of every event in `events` that has one into `directory/clips/`,
    /// replacing older copies. A clip that cannot be copied is recorded in ``failures``
    /// (the report then names it without a link); only the folder itself must be creatable.
    ///
    /// - Throws: ``ReportError/cannotWrite(path:reason:)`` when `directory/clips` cannot be created.
    public static func copy(clipsOf events: [ReportEvent], into directory: String) throws(ReportError) -> ReportClipFolder {
        var folder = ReportClipFolder()
        let paths = events.compactMap(\.clip?.path)
        guard !paths.isEmpty else { return folder }
        let target = URL(fileURLWithPath: directory).appendingPathComponent(folderName).path
        do {
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(path: target, reason: error.localizedDescription)
        }
        var taken: [String: String] = [:]  // file name in the folder → original path
        for path in paths where folder.links[path] == nil {
            var name = (path as NSString).lastPathComponent
            if let other = taken[name], other != path {
                name = "\(taken.count)-\(name)"  // same name from another directory
            }
            taken[name] = path
            let destination = "\(target)/\(name)"
            do {
                if FileManager.default.fileExists(atPath: destination) { try FileManager.default.removeItem(atPath: destination) }
                try FileManager.default.copyItem(atPath: path, toPath: destination)
                let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?"))) ?? name
                folder.links[path] = "\(folderName)/\(encoded)"
            } catch {
                folder.failures.append((path, error.localizedDescription))
            }
        }
        return folder
    }
}
