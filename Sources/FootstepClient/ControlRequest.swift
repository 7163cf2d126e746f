import FootstepWire
import Foundation

/// One HTTP request to the control socket: a method, a path under the
/// socket's root with its query, and an optional JSON body.
public struct ControlRequest: Sendable, Equatable {
    /// The HTTP methods the control API uses.
    public enum Method: String, Sendable, Equatable {
        case get = "GET"
        case post = "POST"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    public var method: Method
    /// The path, such as `/v1/events` (no query, not percent-encoded).
    public var path: String
    /// Query parameters in order; nil values are left out.
    public var query: [(name: String, value: String?)]
    /// The body (JSON unless `contentType` says otherwise).
    public var body: Data?
    public var contentType = "application/json"

    /// Creates a request.
    public init(_ method: Method, _ path: String, query: [(name: String, value: String?)] = [], body: Data? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
    }

    /// A request whose body is `value` encoded with ``APIJSON/encoder``.
    public init(_ method: Method, _ path: String, json value: some Encodable) throws(ControlClientError) {
        do {
            self.init(method, path, body: try APIJSON.encoder.encode(value))
        } catch {
            throw .malformedResponse("cannot encode the request body: \(error)")
        }
    }

    /// The request target: the percent-encoded path and query (`/v1/events?type=stomping&limit=10`).
    public var target: String {
        let items = query.compactMap { item in item.value.map { (item.name, $0) } }
        guard !items.isEmpty else { return Self.encode(path, allowed: .urlPathAllowed) }
        let pairs = items.map { "\(Self.encode($0.0, allowed: Self.queryValueAllowed))=\(Self.encode($0.1, allowed: Self.queryValueAllowed))" }
        return Self.encode(path, allowed: .urlPathAllowed) + "?" + pairs.joined(separator: "&")
    }

    /// Unreserved characters only: `+`, `&`, `=` and `:` in values (dates!) are encoded.
    private static let queryValueAllowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encode(_ text: String, allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    public static func == (lhs: ControlRequest, rhs: ControlRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.body == rhs.body && lhs.contentType == rhs.contentType
    }
}

/// A complete response from the control socket.
public struct ControlResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields, names lowercased (the last value wins).
    public var headers: [String: String]
    /// The body as received.
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The `Content-Type` without parameters (`audio/flac`), if any.
    public var contentType: String? {
        headers["content-type"].map { String($0.split(separator: ";")[0]).trimmingCharacters(in: .whitespaces) }
    }
}
