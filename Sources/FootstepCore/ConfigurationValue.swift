/// One value of the configuration as data: what `GET /v1/config` and
/// `footstepctl config show --json` carry for each key, with the same shape as
/// the TOML file (text, numbers, booleans, lists and tables).
///
/// In JSON it is the plain value (`"default"`, `16000`, `0.13`, `true`,
/// `null`, `[…]`, `{…}`). A JSON number without a fraction decodes as
/// ``integer(_:)``; ``number`` reads either case.
public enum ConfigurationValue: Sendable, Equatable {
    case text(String)
    case integer(Int64)
    case number(Double)
    case flag(Bool)
    /// An optional setting that is not set.
    case none
    case list([ConfigurationValue])
    case table([String: ConfigurationValue])

    /// The value as text, when it is text.
    public var text: String? {
        if case let .text(value) = self { return value }
        return nil
    }

    /// The value as a number, when it is a number of either kind.
    public var number: Double? {
        switch self {
        case let .number(value): value
        case let .integer(value): Double(value)
        default: nil
        }
    }

    /// The value as an integer, when it is a whole number.
    public var integer: Int64? {
        switch self {
        case let .integer(value): value
        case let .number(value) where value == value.rounded() && abs(value) < 9e15: Int64(value)
        default: nil
        }
    }

    /// The value as a boolean, when it is one.
    public var flag: Bool? {
        if case let .flag(value) = self { return value }
        return nil
    }

    /// The elements, when it is a list.
    public var list: [ConfigurationValue]? {
        if case let .list(values) = self { return values }
        return nil
    }
}

extension ConfigurationValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .none
        } else if let value = try? container.decode(Bool.self) {
            self = .flag(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .text(value)
        } else if let values = try? container.decode([ConfigurationValue].self) {
            self = .list(values)
        } else {
            self = .table(try container.decode([String: ConfigurationValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .text(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .flag(value): try container.encode(value)
        case .none: try container.encodeNil()
        case let .list(values): try container.encode(values)
        case let .table(values): try container.encode(values)
        }
    }
}
