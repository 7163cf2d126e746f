import Foundation

extension FootstepDatabase {
    /// The directory the store's relative file paths are relative to: the
    /// database file's own, the daemon's state directory (`audio/…`, `clips/…`).
    /// The current directory for an in-memory database.
    ///
    /// Spelled as the database's path was given (no `//` collapsed), so resolved
    /// paths equal the ones the daemon builds from the same state directory.
    public var fileDirectory: String {
        guard path != ":memory:", let slash = path.lastIndex(of: "/") else { return FileManager.default.currentDirectoryPath }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The path to open for a stored file path: relative ones under
    /// ``fileDirectory``, absolute ones (stores written before paths were
    /// relative, or files outside the state directory) as they are.
    public func resolve(_ stored: String) -> String {
        guard !stored.hasPrefix("/") else { return stored }
        return fileDirectory.hasSuffix("/") ? fileDirectory + stored : fileDirectory + "/" + stored
    }

    /// How a file's path is stored: relative to ``fileDirectory`` when the file
    /// lies under it, so that a copy of the state directory reports, bundles and
    /// verifies wherever it is; other paths stay as given.
    public func storedPath(_ path: String) -> String {
        let directory = Self.standardized(fileDirectory)
        let file = Self.standardized(path)
        guard file.hasPrefix(directory + "/") else { return path }
        return String(file.dropFirst(directory.count + 1))
    }

    /// An absolute, standardized path (`.`/`..` and repeated slashes removed).
    private static func standardized(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath
    }

    /// The record with its path resolved (``resolve(_:)``).
    func resolved(_ file: AudioFileRecord) -> AudioFileRecord {
        var file = file
        file.path = resolve(file.path)
        return file
    }
}
