import FootstepStore
import Foundation
import ZIPFoundation

/// Checks an evidence bundle (a directory or a `.zip` written by `footstepctl bundle`)
/// against its `MANIFEST.sha256`.
enum VerifyBundle {
    /// What went wrong reading the bundle itself.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The bundle's files and the two it reads (manifest and export).
    private struct Contents {
        var present: [String: String] = [:]
        var manifest: Data?
        var export: Data?
    }

    /// The checks of one bundle.
    struct Result {
        /// Manifest against the files.
        var manifest: BundleReport
        /// Events of `export.json` whose hash does not match their fields (nil: no export in the bundle).
        var alteredExportEvents: [Int64]?
        /// Diary entries of `export.json` (by the time they describe) whose hash does not match.
        var alteredExportDiary: [String]?
        /// Type revisions of `export.json` whose hash does not match their fields (nil: no export).
        var alteredExportRevisions: [Int64]?

        var isIntact: Bool {
            manifest.isIntact && (alteredExportEvents ?? []).isEmpty && (alteredExportDiary ?? []).isEmpty
                && (alteredExportRevisions ?? []).isEmpty
        }
    }

    /// Hashes every file of the bundle and compares with its manifest; recomputes the
    /// hash of every event and type revision in its `export.json` (which catches an export edited and then
    /// re-listed in a regenerated manifest).
    static func check(_ path: String, progress: VerifyProgressLine) throws -> Result {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Failure(description: "no bundle at \(path)")
        }
        let contents = isDirectory.boolValue ? try directory(path, progress: progress) : try zip(path, progress: progress)
        guard let manifest = contents.manifest else {
            throw Failure(description: "\(path) has no \(BundleManifest.fileName): not a footstepd bundle, or the manifest was removed")
        }
        var result = Result(manifest: BundleManifest(parsing: String(decoding: manifest, as: UTF8.self)).compare(with: contents.present))
        if let export = contents.export {
            do {
                let document = try ExportDocument.decode(export, source: BundleWriter.exportName)
                result.alteredExportEvents = document.sessions.flatMap(\.events).filter { !$0.hashMatches }.map(\.id)
                result.alteredExportRevisions = document.sessions.flatMap(\.revisions).filter { !$0.hashMatches }.map(\.id)
                if case let .range(range) = document {
                    result.alteredExportDiary = range.diary.filter { !$0.hashMatches }.map(\.at)
                }
            } catch {
                result.manifest.altered.append(BundleWriter.exportName + " (not a readable export: \(error))")
            }
        }
        return result
    }

    private static func directory(_ path: String, progress: VerifyProgressLine) throws -> Contents {
        progress.show("hashing the files of \(path)")
        let entries = try BundleManifest.hashDirectory(path)
        return Contents(
            present: Dictionary(entries.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first }),
            manifest: FileManager.default.contents(atPath: path + "/" + BundleManifest.fileName),
            export: FileManager.default.contents(atPath: path + "/" + BundleWriter.exportName))
    }

    /// Streams every file entry of the archive through SHA-256 (nothing is extracted to disk).
    private static func zip(_ path: String, progress: VerifyProgressLine) throws -> Contents {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw Failure(description: "\(path) is neither a directory nor a readable ZIP archive (\(error))")
        }
        var contents = Contents()
        let entries = archive.filter { $0.type == .file }
        for (index, entry) in entries.enumerated() {
            progress.show("hashing \(index + 1)/\(entries.count): \(entry.path)")
            var hasher = StreamingSHA256()
            var kept = Data()
            let keep = entry.path == BundleManifest.fileName || entry.path == BundleWriter.exportName
            do {
                _ = try archive.extract(entry) { chunk in
                    hasher.update(chunk)
                    if keep { kept.append(chunk) }
                }
            } catch {
                throw Failure(description: "cannot read \(entry.path) in \(path): \(error)")
            }
            if entry.path == BundleManifest.fileName { contents.manifest = kept }
            if entry.path == BundleWriter.exportName { contents.export = kept }
            contents.present[entry.path] = hasher.hex
        }
        return contents
    }
}
