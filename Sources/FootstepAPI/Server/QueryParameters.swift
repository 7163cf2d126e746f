import FootstepStore
import FootstepWire
import Foundation
import Hummingbird
import NIOCore

/// Typed access to a request's query string; every malformed value is a 400
/// naming the parameter, never a silent default.
struct QueryParameters {
    private let values: [String: String]
    private let known: Set<String>

    /// - Parameter known: The parameters the route understands; others are a 400
    ///   (a misspelt `min_confidance` must not silently return everything).
    init(_ request: Request, known: Set<String>) throws(APIError) {
        var values: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard known.contains(name) else {
                let list = known.sorted().joined(separator: ", ")
                throw .badParameter(name, "unknown parameter (this route takes \(list.isEmpty ? "none" : list))")
            }
            guard values[name] == nil else { throw .badParameter(name, "given more than once") }
            values[name] = String(value)
        }
        self.values = values
        self.known = known
    }

    func string(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// An ISO 8601 date/time (`2025-01-31T22:00:00Z`, fractional seconds optional).
    func date(_ name: String) throws(APIError) -> Date? {
        guard let text = string(name) else { return nil }
        guard let date = APIJSON.parseDate(text) else {
            throw .badParameter(name, "'\(text)' is not an ISO 8601 time such as 2025-01-31T22:00:00Z")
        }
        return date
    }

    func int(_ name: String, range: ClosedRange<Int64>) throws(APIError) -> Int64? {
        guard let text = string(name) else { return nil }
        guard let value = Int64(text), range.contains(value) else {
            throw .badParameter(name, "'\(text)' is not a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    func double(_ name: String, range: ClosedRange<Double>) throws(APIError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .badParameter(name, "'\(text)' is not a number in \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    func enumeration<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws(APIError) -> T?
    where T.RawValue == String {
        guard let text = string(name) else { return nil }
        guard let value = T(rawValue: text) else {
            throw .badParameter(name, "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    func cursor(_ name: String = "cursor") throws(APIError) -> TimeCursor? {
        guard let text = string(name) else { return nil }
        guard let cursor = CursorText.parse(text) else {
            throw .badParameter(name, "'\(text)' is not a cursor from a previous page's next_cursor")
        }
        return cursor
    }

    /// `from` and `to`, checked to be in order.
    func range() throws(APIError) -> (from: Date?, to: Date?) {
        let from = try date("from")
        let to = try date("to")
        if let from, let to, to < from { throw .badParameter("to", "is before 'from'") }
        return (from, to)
    }
}

/// A path parameter that must be a positive row id.
func rowID(_ context: ControlRequestContext, _ name: String = "id") throws(APIError) -> Int64 {
    let text = context.parameters.get(name) ?? ""
    guard let id = Int64(text), id > 0 else { throw .badParameter(name, "'\(text)' is not a positive id") }
    return id
}

/// A JSON response (one line, newline-terminated) with `status`.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    var data = try APIJSON.encoder.encode(value)
    data.append(0x0A)
    return Response(
        status: status, headers: [.contentType: "application/json; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
}

/// Decodes a JSON body of at most `limit` bytes; 413 over the limit, 400 when malformed.
func decodeBody<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
    let buffer: ByteBuffer
    do {
        buffer = try await request.body.collect(upTo: limit)
    } catch is NIOTooManyBytesError {
        throw APIError(.contentTooLarge, code: "body_too_large", "the request body is larger than \(limit) bytes")
    }
    guard buffer.readableBytes > 0 else { throw APIError.badBody("a JSON object is required") }
    do {
        return try APIJSON.decoder.decode(T.self, from: Data(buffer.readableBytesView))
    } catch let error as DecodingError {
        throw APIError.badBody(APIErrorMiddleware.describe(error))
    }
}
