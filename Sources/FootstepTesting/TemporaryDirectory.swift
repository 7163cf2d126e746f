import Foundation

/// A fresh directory under the system's temporary directory, removed when
/// the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory's absolute path.
    public let path: String

    public init(prefix: String = "footstepd-test") throws {
        var template = Array("\(NSTemporaryDirectory())/\(prefix)-XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: created)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `path` joined with `name`.
    public func appending(_ name: String) -> String { "\(path)/\(name)" }
}
