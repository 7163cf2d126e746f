import FootstepStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Turns every error a route throws into a JSON error response: ``APIError``s as
/// they are, the router's "no route" into 404 or 405 (with `Allow`), a body over
/// the limit into 413, store errors by kind, and anything else into a logged 500.
struct APIErrorMiddleware: RouterMiddleware {
    typealias Context = ControlRequestContext

    let routes: RouteIndex
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPParserError {
            // A broken request stream (bad chunked body…): Hummingbird answers 400 and closes.
            throw error
        } catch {
            return try apiError(for: error, request: request).response(from: request, context: context)
        }
    }

    func apiError(for error: any Error, request: Request) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError where error.status == .notFound:
            let path = request.uri.path
            guard let methods = routes.methods(for: path) else {
                return .notFound("no route \(request.method.rawValue) \(path) (routes are under /v1, and /metrics)")
            }
            var headers = HTTPFields()
            headers[.allow] = methods.map(\.rawValue).joined(separator: ", ")
            return APIError(
                .methodNotAllowed, code: "method_not_allowed",
                "\(request.method.rawValue) is not allowed on \(path); use \(methods.map(\.rawValue).joined(separator: " or "))",
                headers: headers)
        case let error as HTTPError:
            return APIError(error.status, code: "http_error", error.body ?? error.status.reasonPhrase)
        case is NIOTooManyBytesError:
            return APIError(.contentTooLarge, code: "body_too_large", "the request body is larger than the server accepts")
        case let error as StoreError:
            let apiError = APIError(error)
            if apiError.status.code >= 500 { logger.error("store error on \(request.uri.path): \(error)") }
            return apiError
        case let error as DecodingError:
            return .badBody(Self.describe(error))
        default:
            logger.error("unexpected error on \(request.method.rawValue) \(request.uri.path): \(error)")
            return .internal("unexpected error: \(error)")
        }
    }

    /// A decoding error in words, naming the field.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : "'\(keys)': "
        }
        switch error {
        case let .keyNotFound(key, context):
            return "\(path(context))missing field '\(key.stringValue)'"
        case let .typeMismatch(type, context):
            return "\(path(context))expected \(type)"
        case let .valueNotFound(type, context):
            return "\(path(context))expected \(type), found null"
        case let .dataCorrupted(context):
            return "\(path(context))\(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
