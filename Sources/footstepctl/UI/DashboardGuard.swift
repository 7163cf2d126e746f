import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Who may use the dashboard: a browser on this machine that opened the URL
/// `footstepctl ui` printed. Every request must name this server as its `Host`
/// (a page elsewhere cannot rebind a name of its own to 127.0.0.1), any `Origin`
/// must be this server (and a state-changing request must have one), and the
/// one-time token must come with it: in the URL once, after which a strict,
/// HTTP-only cookie carries it. Anything else is 403 with no data.
struct DashboardGuard<Context: RequestContext>: RouterMiddleware {
    let token: String
    let bound: BoundPort

    /// The port the server listens on (known once it runs: `--port 0` picks a free one).
    var port: Int { bound.port }

    /// The cookie that carries the token (one name per port: two dashboards do not clash).
    var cookieName: String { "footstepd_ui_\(port)" }

    var origins: Set<String> { ["http://127.0.0.1:\(port)", "http://localhost:\(port)"] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // HTTP/1.1's Host header arrives as the request's authority.
        let host = request.head.authority ?? ""
        guard host == "127.0.0.1:\(port)" || host == "localhost:\(port)" else {
            return Self.refuse("this dashboard answers only at http://127.0.0.1:\(port)/")
        }
        let origin = request.headers[.origin]
        if let origin, !origins.contains(origin) { return Self.refuse("a page from \(origin) may not use this dashboard") }
        if request.method != .get && request.method != .head && origin == nil {
            return Self.refuse("a change must come from the dashboard's own page")
        }
        let fromURL = request.uri.queryParameters.get("token")
        if let fromURL, Self.same(fromURL, token) {
            // Trade the URL's token for the cookie, and take it out of the address bar.
            var response = request.method == .get && !request.uri.path.hasPrefix("/api/")
                ? Response(status: .seeOther, headers: [.location: request.uri.path])
                : try await next(request, context)
            response.headers.append(HTTPField(
                name: .setCookie, value: "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"))
            return response
        }
        guard let cookie = Self.cookie(cookieName, in: request.headers), Self.same(cookie, token) else {
            return Self.refuse("a valid token is needed: open the URL footstepctl ui printed")
        }
        return try await next(request, context)
    }

    static func cookie(_ name: String, in headers: HTTPFields) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    /// Compares in time that does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    static func refuse(_ message: String) -> Response {
        DashboardServer.error(.forbidden, code: "forbidden", message)
    }

    /// A new token: 32 random bytes as hex.
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// The port the dashboard is bound to, set once it runs.
final class BoundPort: Sendable {
    private let value = Atomic<Int>(0)
    var port: Int { value.load(ordering: .acquiring) }
    func set(_ port: Int) { value.store(port, ordering: .releasing) }
}
