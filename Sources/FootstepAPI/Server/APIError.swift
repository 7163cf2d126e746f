import FootstepStore
import FootstepWire
import Foundation
import HTTPTypes
import Hummingbird

/// An error that reaches the client as `{"error":{"code","message"}}` with its status.
///
/// Every failure of a route ends up as one of these (see ``APIErrorMiddleware``),
/// so a client never sees an empty or HTML error body.
public struct APIError: Error, HTTPResponseError, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A stable, machine-readable code.
    public var code: String
    /// What went wrong and what to do, for a person.
    public var message: String
    /// Extra response headers (`Allow` on 405).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let data = (try? APIJSON.encoder.encode(ErrorResponse(code: code, message: message))) ?? Data()
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data + [0x0A])))
    }
}

extension APIError {
    /// 400: a query parameter or body field is missing or malformed; the message names it.
    public static func badParameter(_ name: String, _ problem: String) -> APIError {
        APIError(.badRequest, code: "bad_parameter", "parameter '\(name)': \(problem)")
    }

    /// 400: the request body is not the JSON expected.
    public static func badBody(_ problem: String) -> APIError {
        APIError(.badRequest, code: "bad_body", "request body: \(problem)")
    }

    /// 404: no such resource.
    public static func notFound(_ message: String) -> APIError {
        APIError(.notFound, code: "not_found", message)
    }

    /// 409: the request conflicts with the daemon's state.
    public static func conflict(_ message: String) -> APIError {
        APIError(.conflict, code: "conflict", message)
    }

    /// 503: the daemon cannot serve this now (starting, store not open).
    public static func unavailable(_ code: String = "unavailable", _ message: String) -> APIError {
        APIError(.serviceUnavailable, code: code, message)
    }

    /// 500: an unexpected failure (details are in the journal).
    public static func `internal`(_ message: String) -> APIError {
        APIError(.internalServerError, code: "internal", message)
    }

    /// The API form of a store error.
    public init(_ error: StoreError) {
        switch error {
        case .sessionNotFound, .eventNotFound, .audioFileNotFound:
            self.init(.notFound, code: "not_found", error.description)
        case .sessionOpen:
            self.init(.conflict, code: "session_open", error.description)
        case .sessionClosed:
            self.init(.conflict, code: "session_closed", error.description)
        case .invalidValue:
            self.init(.badRequest, code: "invalid_value", error.description)
        case .busy:
            self.init(.serviceUnavailable, code: "store_busy", error.description)
        case .diskFull:
            self.init(.init(code: 507, reasonPhrase: "Insufficient Storage"), code: "disk_full", error.description)
        case .readOnly:
            self.init(.serviceUnavailable, code: "store_read_only", error.description)
        case .cannotOpen, .corrupt, .schemaTooNew, .schemaNotMigrated, .sqlite:
            self.init(.internalServerError, code: "store_error", error.description)
        }
    }
}
