import Foundation

/// An export file's content: one session (`footstepctl export --session`) or a time
/// range with several sessions (`--from --to`).
public enum ExportDocument: Sendable, Hashable {
    /// A ``SessionExport``.
    case session(SessionExport)
    /// A ``RangeExport``.
    case range(RangeExport)

    /// The session exports it holds.
    public var sessions: [SessionExport] {
        switch self {
        case let .session(export): return [export]
        case let .range(export): return export.sessions
        }
    }

    /// The JSON text (``ExportJSONEncoder``).
    public func encoded() throws -> Data {
        switch self {
        case let .session(export): return try ExportJSONEncoder().encode(export)
        case let .range(export): return try ExportJSONEncoder().encode(export)
        }
    }

    /// Reads an export file's bytes.
    ///
    /// - Parameter source: The file name, for error messages.
    /// - Throws: ``ImportError/notAnExport(source:message:)`` or ``ImportError/unsupportedFormat(source:format:)``.
    public static func decode(_ data: Data, source: String) throws(ImportError) -> ExportDocument {
        struct Header: Decodable { var format: String }
        let decoder = JSONDecoder()
        let format: String
        do {
            format = try decoder.decode(Header.self, from: data).format
        } catch {
            throw .notAnExport(source: source, message: "no \"format\" field (\(Self.describe(error)))")
        }
        do {
            switch format {
            case SessionExport.formatTag: return .session(try decoder.decode(SessionExport.self, from: data))
            case RangeExport.formatTag:
                let range = try decoder.decode(RangeExport.self, from: data)
                if let bad = range.sessions.first(where: { $0.format != SessionExport.formatTag }) {
                    throw ImportError.unsupportedFormat(source: source, format: bad.format)
                }
                return .range(range)
            default: throw ImportError.unsupportedFormat(source: source, format: format)
            }
        } catch let error as ImportError {
            throw error
        } catch {
            throw .notAnExport(source: source, message: Self.describe(error))
        }
    }

    /// A decoding error as "at events[3].laMax: …".
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error {
        case let .keyNotFound(key, context):
            return "missing field \(path(context).isEmpty ? "" : path(context) + ".")\(key.stringValue)"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            return "at \(path(context)): \(context.debugDescription)"
        @unknown default:
            return String(describing: error)
        }
    }
}
