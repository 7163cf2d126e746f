import Foundation

/// A one-line progress display on stderr, shown only when stderr is a
/// terminal and updated at most five times a second.
final class ProgressReporter {
    private let label: String
    private let enabled = isatty(2) == 1
    private var lastUpdate = Date.distantPast
    private var shown = false

    init(label: String) {
        self.label = label
    }

    func update(frames: Int64, total: Int?, sampleRate: Int?) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastUpdate) >= 0.2 else { return }
        lastUpdate = now
        let text: String
        if let total, total > 0 {
            text = String(format: "\r%@: %3.0f%%", label, 100 * Double(frames) / Double(total))
        } else {
            text = "\r\(label): \(frames) frames"
        }
        FileHandle.standardError.write(Data(text.utf8))
        shown = true
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
