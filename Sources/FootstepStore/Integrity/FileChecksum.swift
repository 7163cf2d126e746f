import Crypto
import Foundation

/// A file the store vouches for and its recorded SHA-256, for the caller to compare
/// with the file on disk (``sha256(ofFileAt:)``).
public struct FileChecksum: Sendable, Hashable {
    /// What the file is.
    public enum Kind: String, Sendable, Hashable {
        /// A full-length recording (`audioFile` row).
        case audio
        /// An event clip (`event.clipPath`).
        case clip
        /// The clip of a diary mark (`diaryEntry.clipPath`).
        case markClip = "mark_clip"
    }

    /// What the file is.
    public var kind: Kind
    /// The audio file id, event id or diary entry id it belongs to.
    public var ownerId: Int64
    /// The session (0 for a mark's clip, which belongs to the diary).
    public var sessionId: Int64
    /// The path as stored: relative to the store's directory
    /// (``FootstepDatabase/resolve(_:)``), or absolute.
    public var path: String
    /// Recorded lower-case hex SHA-256.
    public var sha256: String
    /// Recorded size in bytes (audio files only).
    public var bytes: Int64?

    /// Streams a file through SHA-256 and returns lower-case hex.
    ///
    /// Reads 64 KiB at a time: below glibc's mmap threshold, so the daemon's
    /// hashing of each closed audio file (a few hundred MB) reuses one small
    /// heap block instead of mapping 1 MiB per read (see `MallocTuning`).
    ///
    /// - Throws: The file system error if the file cannot be read.
    public static func sha256(ofFileAt path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: Self.readChunkBytes), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return EventHasher.hexString(hasher.finalize())
    }

    static let readChunkBytes = 64 << 10
}
