import Crypto
import FootstepStore
import Foundation

/// Events and level minutes the store refused, kept on disk at a stop until the
/// next start stores them (`STATE_DIR/pending.jsonl`).
///
/// One record a line: `<SHA-256 of the JSON, hex> <JSON>`, the JSON
/// `{"event": NewEvent}` or `{"levels": LevelMinuteRecord}`; appended, then
/// fsync'd with its directory. A line whose checksum does not match is
/// reported and left out. A full disk cannot refuse it: the daemon holds
/// ``reserveBytes`` back in `pending.reserve` and hands them to the journal
/// when it is written.
public struct PendingJournal: Sendable {
    public static let fileName = "pending.jsonl"
    public static let reserveName = "pending.reserve"
    /// About 10,000 events' worth.
    public static let reserveBytes = 4 << 20

    public let directory: String
    public var path: String { directory + "/" + Self.fileName }
    public var reservePath: String { directory + "/" + Self.reserveName }
    public var exists: Bool { FileManager.default.fileExists(atPath: path) }

    /// The journal of the state directory `directory`.
    public init(directory: String) { self.directory = directory }

    private enum Line: Codable {
        case event(NewEvent)
        case levels(LevelMinuteRecord)
    }

    /// Holds ``reserveBytes`` back on the state directory's disk, unless already held; false when it cannot.
    @discardableResult
    func holdReserve() -> Bool {
        if let size = (try? FileManager.default.attributesOfItem(atPath: reservePath))?[.size] as? Int,
            size >= Self.reserveBytes
        {
            return true
        }
        let descriptor = open(reservePath, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard posix_fallocate(descriptor, 0, off_t(Self.reserveBytes)) == 0, fsync(descriptor) == 0 else {
            unlink(reservePath)
            return false
        }
        return true
    }

    /// Appends the records, durably: the reserve is let go first so that a full disk can take them.
    func write(events: [NewEvent], levels: [LevelMinuteRecord]) throws {
        unlink(reservePath)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var text = ""
        for line in events.map(Line.event) + levels.map(Line.levels) {
            let json = String(decoding: try encoder.encode(line), as: UTF8.self)
            text += Self.checksum(json) + " " + json + "\n"
        }
        let descriptor = open(path, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOSPC) }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryDescriptor >= 0 {
            fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// The records whose checksum matches, in the order written, and how many lines did not.
    public func read() throws -> (events: [NewEvent], levels: [LevelMinuteRecord], damaged: Int) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var events: [NewEvent] = []
        var levels: [LevelMinuteRecord] = []
        var damaged = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, Self.checksum(String(parts[1])) == parts[0],
                let record = try? JSONDecoder().decode(Line.self, from: Data(parts[1].utf8))
            else {
                damaged += 1
                continue
            }
            switch record {
            case let .event(event): events.append(event)
            case let .levels(minute): levels.append(minute)
            }
        }
        return (events, levels, damaged)
    }

    func remove() { unlink(path) }

    private static func checksum(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
