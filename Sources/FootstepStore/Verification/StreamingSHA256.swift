import Crypto
import Foundation

/// SHA-256 of data that arrives in chunks (e.g. a file inside a ZIP archive), as
/// lower-case hex like ``FileChecksum/sha256(ofFileAt:)``.
public struct StreamingSHA256 {
    private var hasher = SHA256()

    /// Creates an empty hash.
    public init() {}

    /// Adds a chunk.
    public mutating func update(_ chunk: Data) {
        hasher.update(data: chunk)
    }

    /// The lower-case hex digest of everything added (the value can keep being updated).
    public var hex: String {
        EventHasher.hexString(hasher.finalize())
    }
}
