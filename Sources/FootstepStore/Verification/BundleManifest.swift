import Foundation

/// `MANIFEST.sha256` of an evidence bundle, in `sha256sum` format: one line per file,
/// `<64 lower-case hex digits><two spaces><relative path>`, sorted by path, so
/// `sha256sum -c MANIFEST.sha256` run inside the bundle checks it with standard tools.
/// The manifest does not list itself.
public struct BundleManifest: Sendable, Hashable {
    /// The manifest's file name at the root of a bundle.
    public static let fileName = "MANIFEST.sha256"

    /// A listed file.
    public struct Entry: Sendable, Hashable {
        /// Path relative to the bundle root, `/`-separated.
        public var path: String
        /// Lower-case hex SHA-256.
        public var sha256: String

        /// Creates an entry.
        public init(path: String, sha256: String) {
            self.path = path
            self.sha256 = sha256
        }
    }

    /// The files, sorted by path.
    public var entries: [Entry]
    /// 1-based numbers of lines that are not `HEX  path` (only when parsed).
    public var malformedLines: [Int]

    /// Creates a manifest of `entries` (sorted by path).
    public init(entries: [Entry]) {
        self.entries = entries.sorted { $0.path < $1.path }
        self.malformedLines = []
    }

    /// The manifest text.
    public var text: String {
        entries.map { "\($0.sha256)  \($0.path)\n" }.joined()
    }

    /// Parses a manifest (also accepts sha256sum's binary-mode marker, `HEX *path`).
    public init(parsing text: String) {
        var entries: [Entry] = []
        var malformed: [Int] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty { continue }
            let bytes = Array(line.utf8)
            let hex = bytes.prefix(64)
            guard bytes.count > 66, hex.count == 64,
                hex.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }),
                bytes[64] == 32, bytes[65] == 32 || bytes[65] == 42
            else {
                malformed.append(index + 1)
                continue
            }
            entries.append(
                Entry(path: String(decoding: bytes[66...], as: UTF8.self), sha256: String(decoding: hex, as: UTF8.self).lowercased()))
        }
        self.entries = entries
        self.malformedLines = malformed
    }

    /// Every regular file under `directory` except the manifest, with its SHA-256.
    ///
    /// - Throws: The file system error of a file that cannot be read.
    public static func hashDirectory(_ directory: String) throws -> [Entry] {
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [])
        else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory])
        }
        var entries: [Entry] = []
        let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
        for case let url as URL in enumerator {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(prefix) else { continue }
            let relative = String(full.dropFirst(prefix.count))
            if relative == fileName { continue }
            entries.append(Entry(path: relative, sha256: try FileChecksum.sha256(ofFileAt: full)))
        }
        return entries.sorted { $0.path < $1.path }
    }

    /// Compares the manifest with the files actually present (path → SHA-256).
    public func compare(with present: [String: String]) -> BundleReport {
        var report = BundleReport(checkedFiles: 0, altered: [], missing: [], unlisted: [], malformedLines: malformedLines)
        var listed: Set<String> = []
        for entry in entries {
            listed.insert(entry.path)
            guard let actual = present[entry.path] else {
                report.missing.append(entry.path)
                continue
            }
            report.checkedFiles += 1
            if actual != entry.sha256 { report.altered.append(entry.path) }
        }
        report.unlisted = present.keys.filter { !listed.contains($0) && $0 != Self.fileName }.sorted()
        return report
    }
}

/// The result of checking a bundle against its manifest.
public struct BundleReport: Sendable, Hashable, CustomStringConvertible {
    /// Listed files that were found and hashed.
    public var checkedFiles: Int
    /// Listed files whose content changed.
    public var altered: [String]
    /// Listed files that are not in the bundle.
    public var missing: [String]
    /// Files in the bundle that the manifest does not list (added after it was written).
    public var unlisted: [String]
    /// Manifest lines that could not be read.
    public var malformedLines: [Int]

    /// True when every listed file is present and unchanged and nothing was added.
    public var isIntact: Bool { altered.isEmpty && missing.isEmpty && unlisted.isEmpty && malformedLines.isEmpty }

    public var description: String {
        var lines = [
            isIntact
                ? "bundle intact: \(checkedFiles) file(s) match \(BundleManifest.fileName)"
                : "bundle NOT intact: \(altered.count) altered, \(missing.count) missing, \(unlisted.count) not in the manifest"
        ]
        lines += altered.map { "  file \($0) was altered (SHA-256 differs from the manifest)" }
        lines += missing.map { "  file \($0) is missing (listed in the manifest)" }
        lines += unlisted.map { "  file \($0) is in the bundle but not in the manifest" }
        lines += malformedLines.map { "  \(BundleManifest.fileName) line \($0) is not \"SHA-256  path\"" }
        return lines.joined(separator: "\n")
    }
}
