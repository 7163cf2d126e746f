import Foundation

/// The result of ``FootstepDatabase/verifyEvidence(baseDirectory:progress:)``: the
/// event hash chain and every file the store vouches for (closed audio files and clips).
public struct EvidenceReport: Sendable, Hashable, CustomStringConvertible {
    /// A file whose content is not what the store recorded.
    public struct FileProblem: Sendable, Hashable {
        /// What is wrong.
        public enum Kind: Sendable, Hashable {
            /// The file's SHA-256 differs from the recorded one.
            case altered(actualSHA256: String)
            /// The file is not there.
            case missing
            /// The file exists but could not be read.
            case unreadable(message: String)
        }

        /// The file and its recorded checksum.
        public var file: FileChecksum
        /// The path that was checked (relative paths resolved against the state directory).
        public var checkedPath: String
        /// What is wrong.
        public var kind: Kind
    }

    /// The event hash chain.
    public var chain: ChainReport
    /// Number of files hashed.
    public var checkedFiles: Int
    /// Bytes hashed.
    public var checkedBytes: Int64
    /// Files that do not match.
    public var fileProblems: [FileProblem]
    /// Audio files not checked because they are still being written (no SHA-256 yet).
    public var openAudioFiles: Int
    /// Audio files not checked because retention deleted them (their rows and checksums are kept).
    public var prunedAudioFiles: Int
    /// The diary's hash chain (nil: not checked).
    public var diary: DiaryChainReport?
    /// The type revisions hashed onto the events (nil: not checked).
    public var revisions: RevisionChainReport?

    /// True when every chain is intact and every file matches.
    public var isIntact: Bool {
        chain.isIntact && fileProblems.isEmpty && (diary?.isIntact ?? true) && (revisions?.isIntact ?? true)
    }

    public var description: String {
        var lines = [chain.description]
        if let revisions { lines.append(revisions.description) }
        if let diary { lines.append(diary.description) }
        let files = "\(checkedFiles) file(s), \(ByteCountFormatter.string(fromByteCount: checkedBytes, countStyle: .file))"
        lines.append(
            fileProblems.isEmpty
                ? "files intact: \(files) match their recorded SHA-256"
                : "files NOT intact: \(fileProblems.count) problem(s) in \(files)")
        for problem in fileProblems {
            let what =
                switch problem.file.kind {
                case .audio: "audio file \(problem.file.ownerId)"
                case .clip: "clip of event \(problem.file.ownerId)"
                case .markClip: "clip of diary mark \(problem.file.ownerId)"
                }
            switch problem.kind {
            case let .altered(actual):
                lines.append(
                    "  \(what) was altered: \(problem.checkedPath) hashes to \(actual.prefix(16))…, "
                        + "recorded \(problem.file.sha256.prefix(16))…")
            case .missing:
                lines.append("  \(what) is missing: \(problem.checkedPath)")
            case let .unreadable(message):
                lines.append("  \(what) cannot be read: \(problem.checkedPath): \(message)")
            }
        }
        if openAudioFiles > 0 { lines.append("  \(openAudioFiles) audio file(s) still being written (not checked)") }
        if prunedAudioFiles > 0 { lines.append("  \(prunedAudioFiles) audio file(s) deleted by retention (not checked)") }
        return lines.joined(separator: "\n")
    }
}

/// Progress of a long verification, for a display.
public struct VerificationProgress: Sendable, Hashable {
    /// Files hashed so far.
    public var files: Int
    /// Files to hash in total.
    public var totalFiles: Int
    /// Bytes hashed so far.
    public var bytes: Int64
    /// The file being hashed.
    public var currentPath: String
}
