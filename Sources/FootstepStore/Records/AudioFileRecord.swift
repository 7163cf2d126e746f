import FootstepCore
import Foundation
import GRDB

/// One recorded audio file of a session (table `audioFile`).
///
/// A file is written while open (`closedAt == nil`); on close its frame count,
/// size and SHA-256 are recorded so `footstepctl verify` can prove it unchanged.
public struct AudioFileRecord: Codable, Sendable, Hashable, Identifiable {
    /// Row id; nil until inserted.
    public var id: Int64?
    /// The session the file belongs to.
    public var sessionId: Int64
    /// The file: stored relative to the store's directory (the state directory), returned
    /// resolved by the store's functions (``FootstepDatabase/resolve(_:)``).
    public var path: String
    /// Wall-clock time of the file's first frame (UTC): the re-anchored sample clock.
    public var startedAt: Date
    /// Offset of the file's first frame within the session's sample clock.
    public var startFrame: Int64
    /// Frames written so far (final once closed).
    public var frames: Int64
    /// Samples per second.
    public var sampleRate: Int
    /// Channel count.
    public var channels: Int
    /// Container format.
    public var format: AudioFileContainer
    /// Lower-case hex SHA-256 of the closed file; nil while open.
    public var sha256: String?
    /// When the file was closed; nil while open.
    public var closedAt: Date?
    /// Size of the file in bytes (final once closed).
    public var bytes: Int64
    /// When retention deleted the file from disk (the row and its checksum are kept).
    public var prunedAt: Date?

    /// Creates an audio file value.
    public init(
        id: Int64? = nil, sessionId: Int64, path: String, startedAt: Date, startFrame: Int64,
        frames: Int64 = 0, sampleRate: Int, channels: Int = 1, format: AudioFileContainer,
        sha256: String? = nil, closedAt: Date? = nil, bytes: Int64 = 0, prunedAt: Date? = nil
    ) {
        self.id = id
        self.sessionId = sessionId
        self.path = path
        self.startedAt = startedAt
        self.startFrame = startFrame
        self.frames = frames
        self.sampleRate = sampleRate
        self.channels = channels
        self.format = format
        self.sha256 = sha256
        self.closedAt = closedAt
        self.bytes = bytes
        self.prunedAt = prunedAt
    }

    /// Wall-clock time just after the last written frame.
    public var endsAt: Date {
        startedAt.addingTimeInterval(Double(frames) / Double(max(sampleRate, 1)))
    }

    /// The session frames holding `[from, to)` in one session's `files` (sorted
    /// by first frame), clamped to the audio they hold; nil when they hold none of it.
    /// Times map to frames through the first file's clock at the start and the
    /// last file's at the end (each file's start is re-anchored to the wall clock).
    public static func frames(of files: [AudioFileRecord], from: Date, to: Date) -> Range<Int64>? {
        guard let first = files.first, let last = files.last else { return nil }
        let rate = Double(first.sampleRate)
        let start = max(first.startFrame, first.startFrame + Int64((from.timeIntervalSince(first.startedAt) * rate).rounded()))
        let end = min(last.startFrame + last.frames, last.startFrame + Int64((to.timeIntervalSince(last.startedAt) * rate).rounded()))
        return end > start ? start..<end : nil
    }
}

extension AudioFileRecord: FetchableRecord, MutablePersistableRecord {
    /// Dates as `StoredDate` text, without `DateFormatter` (see `StoredDateCoding.swift`).
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .storedText }

    /// Dates from `StoredDate` text, without `Calendar` (see `StoredDateCoding.swift`).
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .storedText }

    /// The table name, `audioFile`.
    public static let databaseTableName = "audioFile"

    /// Column names.
    public enum Columns {
        public static let id = Column("id")
        public static let sessionId = Column("sessionId")
        public static let path = Column("path")
        public static let startedAt = Column("startedAt")
        public static let startFrame = Column("startFrame")
        public static let sha256 = Column("sha256")
        public static let bytes = Column("bytes")
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
