/// A configuration file that cannot be used. The message names the file, the
/// key (as `section.key`) and what is wrong; footstepd exits with 78 (EX_CONFIG).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file that was read.
    public var file: String
    /// `section.key`, or nil for a syntax error or a missing file.
    public var key: String?
    /// What is wrong and, where possible, what is allowed.
    public var message: String

    public init(file: String, key: String?, message: String) {
        self.file = file
        self.key = key
        self.message = message
    }

    public var description: String {
        if let key { return "\(file): \(key): \(message)" }
        return "\(file): \(message)"
    }

    /// sysexits.h EX_CONFIG.
    public static let exitCode: Int32 = 78
}
