import Foundation
import HTTPTypes
import Hummingbird

/// One route of the API: method, path pattern (`{name}` matches one segment),
/// who may call it, and its handler.
struct Route: Sendable {
    typealias Handler = @Sendable (Request, ControlRequestContext) async throws -> Response

    var method: HTTPRequest.Method
    var path: String
    var access: AccessLevel
    var handler: Handler

    init(_ method: HTTPRequest.Method, _ path: String, _ access: AccessLevel, _ handler: @escaping Handler) {
        self.method = method
        self.path = path
        self.access = access
        self.handler = handler
    }
}

/// The registered path patterns and their methods, to tell a wrong method
/// (405 with `Allow`) from an unknown path (404).
struct RouteIndex: Sendable {
    private var entries: [(segments: [Substring], methods: [HTTPRequest.Method])] = []

    init(_ routes: [Route]) {
        for route in routes {
            let segments = route.path.split(separator: "/")
            if let index = entries.firstIndex(where: { $0.segments == segments }) {
                entries[index].methods.append(route.method)
            } else {
                entries.append((segments, [route.method]))
            }
        }
    }

    /// The methods allowed on `path`, or nil when no route has this path.
    func methods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/")
        var methods: [HTTPRequest.Method] = []
        for entry in entries where entry.segments.count == segments.count {
            let matches = zip(entry.segments, segments).allSatisfy { pattern, segment in
                (pattern.first == "{" && pattern.last == "}") || pattern == segment
            }
            if matches { methods += entry.methods }
        }
        return methods.isEmpty ? nil : methods
    }
}
