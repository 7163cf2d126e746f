import Foundation

/// A one-line progress display on stderr for long verifications: shown only when
/// stderr is a terminal, redrawn at most five times a second, erased at the end.
final class VerifyProgressLine {
    private let enabled: Bool
    private var lastUpdate = Date.distantPast
    private var shown = false

    init(enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
    }

    func show(_ text: String) {
        guard enabled else { return }
        let now = Date()
        guard now.timeIntervalSince(lastUpdate) >= 0.2 else { return }
        lastUpdate = now
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text.prefix(150))".utf8))
        shown = true
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        shown = false
    }
}
