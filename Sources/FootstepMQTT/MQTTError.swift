import FootstepCore

/// What went wrong talking to the broker, in words a user can act on.
public enum MQTTError: Error, Equatable, CustomStringConvertible {
    /// The broker URL is not `mqtt://host[:port]` or `mqtts://host[:port]`.
    case invalidURL(String)
    /// A credential or certificate file could not be read.
    case unreadableFile(path: String, reason: String)
    /// libmosquitto refused a setting or a message (its words).
    case rejected(what: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidURL(url):
            return "'\(url)' is not a broker URL: write \(MQTTBroker.form)"
        case let .unreadableFile(path, reason):
            return "cannot read \(path): \(reason)"
        case let .rejected(what, reason):
            return "\(what): \(reason)"
        }
    }
}
