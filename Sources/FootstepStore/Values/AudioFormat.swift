import GRDB

/// The container of a recorded audio file.
public enum AudioFormat: String, Sendable, Codable, CaseIterable, DatabaseValueConvertible {
    case flac
    case wav
}
