import Foundation
import GRDB

extension FootstepDatabase {
    /// Everything `footstepctl verify` checks in a store: the event hash chain
    /// (``verifyChain()``), the type revisions on it (``verifyRevisions()``), the
    /// diary (``verifyDiary()``) and the SHA-256 of every closed, unpruned audio file and of
    /// every event clip and mark clip (``audioFileChecksums()``, ``clipChecksums()``,
    /// ``markClipChecksums()``).
    ///
    /// Reads the database, then hashes the files one by one (1 MiB at a time); the daemon
    /// keeps recording meanwhile (files it is still writing have no SHA-256 yet and are
    /// counted in ``EvidenceReport/openAudioFiles``).
    ///
    /// - Parameters:
    ///   - baseDirectory: Relative file paths are resolved against it (default: the
    ///     database's directory, the daemon's state directory).
    ///   - progress: Called before each file is hashed.
    /// - Throws: ``StoreError`` if the database cannot be read; file problems are reported, not thrown.
    public func verifyEvidence(
        baseDirectory: String? = nil, progress: (VerificationProgress) -> Void = { _ in }
    ) throws(StoreError) -> EvidenceReport {
        let chain = try verifyChain()
        let files = try audioFileChecksums() + clipChecksums() + markClipChecksums()
        let (open, pruned) = try read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audioFile WHERE sha256 IS NULL")!,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audioFile WHERE sha256 IS NOT NULL AND prunedAt IS NOT NULL")!
            )
        }
        let base = baseDirectory ?? fileDirectory

        var report = EvidenceReport(
            chain: chain, checkedFiles: 0, checkedBytes: 0, fileProblems: [], openAudioFiles: open,
            prunedAudioFiles: pruned, diary: try verifyDiary(), revisions: try verifyRevisions())
        for (index, file) in files.enumerated() {
            let resolved = file.path.hasPrefix("/") ? file.path : base + (base.hasSuffix("/") ? "" : "/") + file.path
            progress(VerificationProgress(files: index, totalFiles: files.count, bytes: report.checkedBytes, currentPath: resolved))
            if let problem = Self.check(file, at: resolved, into: &report) {
                report.fileProblems.append(EvidenceReport.FileProblem(file: file, checkedPath: resolved, kind: problem))
            }
        }
        return report
    }

    /// Hashes one file; nil when it matches.
    private static func check(_ file: FileChecksum, at path: String, into report: inout EvidenceReport)
        -> EvidenceReport.FileProblem.Kind?
    {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return .missing
        }
        let actual: String
        do {
            actual = try FileChecksum.sha256(ofFileAt: path)
        } catch {
            return .unreadable(message: error.localizedDescription)
        }
        report.checkedFiles += 1
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
        report.checkedBytes += size
        return actual == file.sha256.lowercased() ? nil : .altered(actualSHA256: actual)
    }
}
