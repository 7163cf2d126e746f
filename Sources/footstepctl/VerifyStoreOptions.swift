import ArgumentParser
import FootstepStore
import Foundation

/// `--database PATH | --state-dir DIR`: where footstepd's store is, for export, import,
/// bundle and verify.
struct StoreLocationOptions: ParsableArguments {
    @Option(help: "The daemon's database file (default STATE_DIR/footstepd.db).", completion: .file())
    var database: String?

    @Option(help: "The daemon's state directory (its StateDirectory).", completion: .directory)
    var stateDir: String = "/var/lib/footstepd"

    /// The database file.
    var path: String { database ?? "\(stateDir)/footstepd.db" }

    /// Opens an existing store read-only (the daemon may keep recording).
    func openReadOnly() throws -> FootstepDatabase {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreLocationError.noDatabase(path)
        }
        return try FootstepDatabase.openReadOnly(path: path)
    }
}

/// The store named on the command line is not there.
enum StoreLocationError: Error, CustomStringConvertible {
    case noDatabase(String)

    var description: String {
        switch self {
        case let .noDatabase(path):
            return "no footstepd database at \(path): pass --database PATH or --state-dir DIR (the daemon's StateDirectory)"
        }
    }
}

/// The time written as `exportedAt`: now, or `SOURCE_DATE_EPOCH` (seconds) when set,
/// the reproducible-builds convention, so the same data exports to the same bytes.
enum ExportClock {
    static var now: Date {
        if let text = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let seconds = Double(text) {
            return Date(timeIntervalSince1970: seconds)
        }
        return Date()
    }
}

/// Writes a line to stderr.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
