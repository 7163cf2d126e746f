/// Where an MQTT broker is: `mqtt://host[:port]` (port 1883) or `mqtts://host[:port]` (TLS, port 8883). The
/// configuration checks `mqtt.url` with it; `FootstepMQTT` connects to it.
public struct MQTTBroker: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// What a broker URL looks like, for error messages.
    public static let form = "mqtt://host[:port] or mqtts://host[:port]"

    /// Parses a broker URL; IPv6 hosts are written in brackets (`mqtt://[::1]:1883`). Nil when it is not one.
    public init?(url: String) {
        let scheme: (prefix: String, tls: Bool, port: Int)
        if url.hasPrefix("mqtt://") {
            scheme = ("mqtt://", false, 1883)
        } else if url.hasPrefix("mqtts://") {
            scheme = ("mqtts://", true, 8883)
        } else {
            return nil
        }
        var rest = Substring(url.dropFirst(scheme.prefix.count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        var host = rest
        var port = scheme.port
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let number = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = number
        }
        guard !host.isEmpty, !host.contains("/"), !host.contains("@"), (1...65535).contains(port) else {
            return nil
        }
        self.init(host: String(host), port: port, tls: scheme.tls)
    }

    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(shown):\(port)"
    }
}
