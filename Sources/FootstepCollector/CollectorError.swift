/// What stops the collector, in words an operator can act on.
public enum CollectorError: Error, Equatable, CustomStringConvertible {
    case invalidDatabaseURL(String)
    case invalidBrokerURL(String)

    public var description: String {
        switch self {
        case let .invalidDatabaseURL(url):
            return "'\(url)' is not a database URL: write postgres://user[:password]@host[:port]/database"
        case let .invalidBrokerURL(url):
            return "'\(url)' is not a broker URL: write mqtt://host[:port] or mqtts://host[:port]"
        }
    }
}
