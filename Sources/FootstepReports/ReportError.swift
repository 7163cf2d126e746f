import Foundation

/// What can go wrong writing a report.
public enum ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be created or written.
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): return "cannot write the report \(path): \(reason)"
        }
    }
}

extension ReportError {
    /// Writes `data` to `path` atomically, mapping failures to ``cannotWrite(path:reason:)``.
    static func write(_ data: @autoclosure () throws -> Data, to path: String) throws(ReportError) {
        do {
            try data().write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
    }
}
