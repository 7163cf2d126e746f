import CSystemd
import Foundation
import Logging

/// A swift-log handler that writes structured entries to journald through
/// `sd_journal_sendv` (MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, CODE_*, and each
/// metadata key as an upper-cased field, e.g. `footstep.type` →
/// `FOOTSTEP_TYPE`), so `journalctl -u footstepd FOOTSTEP_TYPE=stomping` works.
/// When journald is absent (no `/run/systemd/journal/socket`) or stderr is not
/// connected to the journal, it prints one plain line per entry to stderr.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public let label: String
    private let identifier: String
    private let useJournal: Bool

    /// - Parameter journal: force journald on or off; nil detects it
    ///   (stderr is the stream `JOURNAL_STREAM` names and the journal socket exists).
    public init(label: String, identifier: String = "footstepd", journal: Bool? = nil) {
        self.label = label
        self.identifier = identifier
        self.useJournal = journal ?? Self.journalAvailable
    }

    /// True when this process's stderr goes to journald and its socket exists.
    /// `JOURNAL_STREAM` alone is not enough: a child of a systemd service inherits
    /// it even when its own stderr is a pipe or a terminal.
    public static var journalAvailable: Bool {
        guard let stream = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        return descriptor(STDERR_FILENO, isJournalStream: stream)
            && FileManager.default.fileExists(atPath: "/run/systemd/journal/socket")
    }

    /// Whether `descriptor` is the stream named by `JOURNAL_STREAM` ("DEVICE:INODE",
    /// as systemd sets it), compared with fstat(2) as systemd.exec(5) recommends.
    public static func descriptor(_ descriptor: Int32, isJournalStream stream: String) -> Bool {
        let parts = stream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        if useJournal {
            sendToJournal(event, metadata: merged)
        } else {
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let line = "\(identifier)[\(getpid())]: \(event.level.syslogName): \(event.message)\(fields.isEmpty ? "" : " (\(fields))")\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    private func sendToJournal(_ event: LogEvent, metadata: Logger.Metadata) {
        var fields = [
            "MESSAGE=\(event.message)",
            "PRIORITY=\(event.level.syslogPriority)",
            "SYSLOG_IDENTIFIER=\(identifier)",
            "CODE_FILE=\(event.file)",
            "CODE_LINE=\(event.line)",
            "CODE_FUNC=\(event.function)",
        ]
        for (key, value) in metadata {
            fields.append("\(Self.journalFieldName(key))=\(value)")
        }
        let buffers = fields.map { Array($0.utf8) }
        withIOVectors(buffers) { vectors in
            _ = sd_journal_sendv(vectors.baseAddress, Int32(vectors.count))
        }
    }

    /// `footstep.event_id` → `FOOTSTEP_EVENT_ID` (journald allows A–Z, 0–9, _).
    public static func journalFieldName(_ key: String) -> String {
        var name = String(key.uppercased().map { ($0.isLetter && $0.isASCII) || $0.isNumber ? $0 : "_" })
        while name.hasPrefix("_") { name.removeFirst() }
        if name.first?.isNumber ?? true { name = "F" + name }
        return name
    }
}

private func withIOVectors(_ buffers: [[UInt8]], _ body: (UnsafeBufferPointer<iovec>) -> Void) {
    var vectors: [iovec] = []
    vectors.reserveCapacity(buffers.count)
    func nest(_ index: Int) {
        if index == buffers.count {
            vectors.withUnsafeBufferPointer(body)
            return
        }
        buffers[index].withUnsafeBytes { bytes in
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count))
            nest(index + 1)
        }
    }
    nest(0)
}

extension Logger.Level {
    /// syslog(3) priority: 7 debug … 2 critical.
    var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    var syslogName: String {
        switch self {
        case .trace, .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        case .critical: "critical"
        }
    }
}
