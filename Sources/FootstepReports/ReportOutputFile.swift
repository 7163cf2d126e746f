import Foundation

/// A report file written as a stream (the CSV and JSON of a busy month are tens of
/// megabytes): text is buffered in 1 MiB chunks and written to a temporary file next
/// to the target, which replaces the target only on ``commit()``, so a failed or
/// interrupted run never leaves half a report under the real name.
///
/// - Note: Not thread-safe; one writer per file.
final class ReportOutputFile: TextOutputStream {
    let path: String
    private let temporaryPath: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var failure: String?
    private var committed = false

    private static let chunk = 1 << 20

    /// Creates the temporary file.
    init(path: String) throws(ReportError) {
        self.path = path
        temporaryPath = path + ".partial-\(getpid())"
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        buffer.reserveCapacity(Self.chunk + 4096)
    }

    deinit {
        if !committed {
            try? handle.close()
            unlink(temporaryPath)
        }
    }

    /// Appends `text` (UTF-8).
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunk { flush() }
    }

    private func flush() {
        guard failure == nil, !buffer.isEmpty else {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            failure = error.localizedDescription
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered, closes the file and renames it to `path`.
    func commit() throws(ReportError) {
        flush()
        do {
            try handle.close()
        } catch {
            failure = failure ?? error.localizedDescription
        }
        if let failure { throw .cannotWrite(path: path, reason: failure) }
        guard rename(temporaryPath, path) == 0 else {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        committed = true
    }
}
