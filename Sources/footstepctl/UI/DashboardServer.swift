import FootstepClient
import FootstepWire
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The local web dashboard (`footstepctl ui`): its pages, compiled in, and the
/// daemon's API under `/api/`, forwarded to the control socket as the user who
/// ran `footstepctl ui`, so that the socket's access control stays the only one:
/// a reader's browser can look, only an admin's can review.
struct DashboardServer: Sendable {
    let client: ControlClient
    let token: String
    /// The arguments `footstepctl report` needs to find the store (`--database PATH` or `--state-dir DIR`).
    let storeArguments: [String]
    let logger: Logger

    /// The read routes forwarded as they are: `/api/NAME` → `/v1/NAME`, with the query.
    static let forwarded = ["status", "events", "levels", "bouts", "sessions", "diary"]

    func application(port: Int, onRunning: @escaping @Sendable (Int) -> Void) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        let bound = BoundPort()
        router.middlewares.add(DashboardGuard(token: token, bound: bound))
        router.get("/") { _, _ in Self.asset(DashboardAssets.page, type: "text/html; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.asset(DashboardAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("/style.css") { _, _ in Self.asset(DashboardAssets.style, type: "text/css; charset=utf-8") }
        for name in Self.forwarded {
            router.get("/api/\(name)") { request, _ in
                try await forward(ControlRequest(.get, "/v1/\(name)", query: Self.query(of: request)))
            }
        }
        router.get("/api/events/{id}/clip") { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            return try await forward(ControlRequest(.get, APIPaths.clip(id)))
        }
        router.post("/api/reviews") { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            return try await forward(ControlRequest(.post, APIPaths.reviews, body: Data(buffer: body)))
        }
        router.get("/api/levels/live") { _, _ in liveLevels() }
        router.post("/api/report") { request, _ in try await report(request) }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: "footstepctl-ui"),
            onServerRunning: { channel in
                bound.set(channel.localAddress?.port ?? port)
                onRunning(bound.port)
            },
            logger: logger)
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'self'; connect-src 'self' blob:; media-src 'self' blob:; img-src 'self' data:",
                HTTPField.Name("X-Frame-Options")!: "DENY",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The request's query, less the token.
    static func query(of request: Request) -> [(name: String, value: String?)] {
        request.uri.queryParameters.filter { $0.key != "token" }.map { (String($0.key), String($0.value)) }
    }

    /// The daemon's answer, status and body as they came; a daemon that cannot be reached is 503 saying why.
    func forward(_ request: ControlRequest) async throws -> Response {
        do {
            let answer = try await client.response(request)
            var headers: HTTPFields = [.cacheControl: "no-store"]
            headers[.contentType] = answer.contentType ?? "application/json"
            if let disposition = answer.headers["content-disposition"] { headers[.contentDisposition] = disposition }
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        } catch {
            return Self.error(.serviceUnavailable, code: "unavailable", error.description)
        }
    }

    /// An ``ErrorResponse`` body with `status`, as the daemon's own errors are.
    static func error(_ status: HTTPResponse.Status, code: String, _ message: String) -> Response {
        let body = try? APIJSON.encoder.encode(ErrorResponse(code: code, message: message))
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body ?? Data())))
    }

    /// The daemon's live levels, line by line (NDJSON), for the Now page's meter.
    func liveLevels() -> Response {
        let lines = client.liveLines(.liveLevels)
        return Response(
            status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                do {
                    for try await line in lines {
                        try await writer.write(ByteBuffer(bytes: line + [0x0A]))
                    }
                } catch {
                    // The daemon went away: the page shows it and reconnects.
                }
                try await writer.finish(nil)
            })
    }

    /// `POST /api/report?from=…&to=…&format=html|pdf|csv|json|bundle`: `footstepctl report` (or `bundle`, as a
    /// zip) for the period, its file as the answer.
    func report(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        guard let from = query.get("from"), let to = query.get("to"),
            let format = query.get("format"), ["html", "pdf", "csv", "json", "bundle"].contains(format)
        else {
            return Self.error(.badRequest, code: "bad_request", 
                "a report needs from and to (YYYY-MM-DDTHH:MM, local) and a format: html, pdf, csv, json, bundle")
        }
        let directory = NSTemporaryDirectory() + "/footstepctl-ui-report-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let suffix = format == "bundle" ? "zip" : format
        let storeArguments = storeArguments
        do {
            // Written on a thread of its own: the server goes on answering meanwhile.
            try await Self.offPool {
                if format == "bundle" {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                    let name = "footstep-evidence-\(from.prefix(10))_\(to.prefix(10)).zip"
                    let command = try FootstepCtl.Bundle.parse(
                        ["--from", from, "--to", to, "-o", directory + "/" + name, "--quiet"] + storeArguments)
                    try command.run()
                } else {
                    let command = try FootstepCtl.Report.parse(
                        ["--period", "\(from)..\(to)", "--format", format, "-o", directory, "--quiet"] + storeArguments)
                    try command.run()
                }
            }
        } catch {
            return Self.error(.badRequest, code: "bad_request", "the \(format) could not be made: \(FootstepCtl.Report.message(for: error))")
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        guard let name = files.first(where: { $0.hasSuffix("." + suffix) }),
            let data = FileManager.default.contents(atPath: directory + "/" + name)
        else { return Self.error(.badRequest, code: "bad_request", "the report wrote no \(suffix) file") }
        let types = [
            "html": "text/html; charset=utf-8", "pdf": "application/pdf", "csv": "text/csv", "json": "application/json",
            "bundle": "application/zip",
        ]
        return Response(
            status: .ok,
            headers: [.contentType: types[format]!, .contentDisposition: "attachment; filename=\"\(name)\""],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Runs `body` on a new thread and waits for it without holding one of Swift concurrency's threads.
    static func offPool(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
