import Foundation

/// Hostile but well-framed requests over every route of the control socket:
/// path ids, query parameters and JSON bodies at numeric extremes, NaN and
/// infinities, huge and negative values, wrong types, broken percent- and
/// UTF-8 encodings, unknown parameters and oversized values. Seeded: the same
/// seed gives the same requests.
struct FuzzRequests {
    /// Every route the daemon serves (`ControlServer.allRoutes`; a test keeps them equal).
    static let routes: [(method: String, path: String)] = [
        ("GET", "/v1/status"),
        ("POST", "/v1/recording/start"), ("POST", "/v1/recording/stop"),
        ("POST", "/v1/recording/pause"), ("POST", "/v1/recording/resume"),
        ("GET", "/v1/sessions"), ("GET", "/v1/sessions/{id}"), ("PATCH", "/v1/sessions/{id}"),
        ("DELETE", "/v1/sessions/{id}"),
        ("GET", "/v1/events"), ("GET", "/v1/events/{id}"), ("PATCH", "/v1/events/{id}"),
        ("GET", "/v1/events/{id}/clip"),
        ("GET", "/v1/levels"), ("GET", "/v1/bouts"),
        ("GET", "/v1/levels/live"), ("GET", "/v1/events/live"),
        ("GET", "/v1/config"), ("POST", "/v1/config/reload"), ("POST", "/v1/calibration"),
        ("POST", "/v1/diary"), ("GET", "/v1/diary"), ("GET", "/v1/recordings"), ("POST", "/v1/reviews"),
        ("GET", "/metrics"),
    ]

    /// Routes that change what the daemon records; `--readers-only` leaves them to the 403 check.
    static func changesState(_ method: String) -> Bool { method != "GET" }

    /// Numbers and would-be numbers at and past every boundary.
    static let numbers = [
        "0", "-0", "1", "-1", "2", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "99999999999999999999999999999999", "1e308", "-1e308", "1e309",
        "4.9e-324", "NaN", "nan", "Infinity", "-Infinity", "inf", "0x7fffffff", "1.5", "1e3", "+1", "01", "",
        "%00", "%20", "1%00", "abc", "\u{0661}\u{0662}", String(repeating: "9", count: 5000),
    ]

    /// Dates that are not, or are at the ends of what a date can be.
    static let dates = [
        "2026-11-24T00:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-13-45T99:99:99Z",
        "2026-02-30T00:00:00Z", "1970-01-01T00:00:00Z", "-2026-01-01T00:00:00Z", "2026-11-24", "2026-11-24T00:00:00+99:00",
        "now", "1e308", "NaN", "%FF%FE", "2026-11-24T00:00:00.999999999999Z",
    ]

    /// Cursors (`SECONDS.ID`) that overflow, underflow or do not parse.
    static let cursors = [
        "9223372036854775807.1", "1.9223372036854775807", "1e308.1", "-1e308.-1", "NaN.NaN", "inf.1", "1.",
        ".1", "..", "1.2.3", "-1.-1", "0.0", "1735689600.5", "%2E", String(repeating: "1", count: 400) + ".1",
    ]

    static let parameterNames = ["from", "to", "kind", "type", "limit", "min_confidence", "session", "cursor", "review"]
    static let words = [
        "footstep", "other", "heel_strike", "stomping", "unknown", "", "%", "%G1", "%C0%AF", "\u{0}", "é", "rejected",
        "unreviewed",
    ]

    /// JSON bodies for the routes that take one: each field at extremes, wrong types and broken documents.
    static let fieldNames = [
        "title", "notes", "offset_db", "reference_db", "method", "reference", "kind", "at", "duration_seconds", "text",
        "action", "type", "events", "bout", "from", "to", "reason",
    ]
    static let jsonValues = [
        "null", "true", "0", "-1", "1e308", "-1e308", "1e999", "-0.0", "9223372036854775808", "\"\"", "\"x\"",
        "\"NaN\"", "\"2026-11-24T00:00:00Z\"", "\"reject\"", "\"relabel\"", "[1, 2, 3]", "[-1, 9223372036854775807]", "\"9999-99-99T99:99:99Z\"", "[]", "{}", "[[[[[[[[]]]]]]]]",
        "\"" + String(repeating: "a", count: 70_000) + "\"", "\"\\ud800\"", "\"\\u0000\"", "NaN", "Infinity",
    ]

    private var random: SplitMix

    init(seed: UInt64) {
        random = SplitMix(seed: seed)
    }

    /// One request: its route, and its bytes (complete, with `Content-Length`).
    mutating func next(routes: [(method: String, path: String)]) -> (route: (method: String, path: String), bytes: [UInt8]) {
        let route = routes[pick(routes.count)]
        var path = route.path.replacingOccurrences(of: "{id}", with: pickOne(Self.numbers))
        var query: [String] = []
        for _ in 0..<pick(4) {
            let name = pick(10) == 0 ? pickOne(["x", "limit[]", "%FF", "from%00", ""]) : pickOne(Self.parameterNames)
            let value: String
            switch name {
            case "from", "to": value = pickOne(Self.dates)
            case "cursor": value = pickOne(Self.cursors)
            case "kind", "type", "review": value = pickOne(Self.words)
            default: value = pickOne(Self.numbers)
            }
            query.append("\(name)=\(value)")
        }
        if !query.isEmpty { path += "?" + query.joined(separator: "&") }
        var head = "\(route.method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        var body: [UInt8] = []
        if route.method != "GET" && pick(4) != 0 {
            body = Array(jsonBody().utf8)
            if pick(20) == 0 { body += [0xC0, 0xAF, 0xFF] }  // invalid UTF-8 after the document
            head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        }
        return (route, Array((head + "\r\n").utf8) + body)
    }

    private mutating func jsonBody() -> String {
        switch pick(8) {
        case 0: return String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        case 1: return "{\"notes\": \"a\", \"notes\": 1}"
        case 2: return "{" + (0..<pick(200)).map { "\"k\($0)\": \($0)" }.joined(separator: ",") + "}"
        case 3: return pickOne(["", "{", "}", "nul", "{\"a\":}", "[1,2", "\"", "{'a': 1}"])
        default:
            let fields = (0..<(1 + pick(4))).map { _ in "\"\(pickOne(Self.fieldNames))\": \(pickOne(Self.jsonValues))" }
            return "{" + fields.joined(separator: ", ") + "}"
        }
    }

    private mutating func pick(_ count: Int) -> Int { Int(random.next() % UInt64(max(count, 1))) }
    private mutating func pickOne(_ values: [String]) -> String { values[pick(values.count)] }
}

/// A tiny seeded generator (SplitMix64).
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
