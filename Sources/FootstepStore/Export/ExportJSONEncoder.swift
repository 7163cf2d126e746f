import Foundation

/// A deterministic JSON encoder for exports.
///
/// Foundation's `JSONEncoder` (swift-foundation on Linux) writes object keys in a
/// per-process random order unless `.sortedKeys` is set, and leaves out nil
/// optionals. Exports must be byte-identical when re-exported (the import round
/// trip) and readable by a person, so this encoder:
/// - keeps the declaration order of `Codable` properties (`format`, `session` first, `events` last);
/// - writes `null` for nil optionals instead of leaving the key out;
/// - writes doubles in Swift's shortest round-trip form (`0.1`, `40.0`, `1e-07`), which
///   `JSONDecoder` reads back to the identical bit pattern;
/// - pretty-prints containers one member per line, except objects and arrays of plain
///   values inside an array, which take one line each (one event per line).
///
/// Decode with Foundation's `JSONDecoder`.
public struct ExportJSONEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// The JSON text of `value`, UTF-8, ending with a newline.
    ///
    /// - Throws: `EncodingError.invalidValue` for a non-finite double.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let node = try JSONNodeEncoder.node(for: value, codingPath: [])
        var text = ""
        text.reserveCapacity(4096)
        JSONNodeWriter.write(node, into: &text, indent: 0, insideArray: false)
        text += "\n"
        return Data(text.utf8)
    }
}

/// A JSON value with ordered object members.
indirect enum JSONNode {
    case null
    case bool(Bool)
    /// A number already rendered (integers, shortest-form doubles).
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(String, JSONNode)])

    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}

/// Writes ``JSONNode``s as text.
enum JSONNodeWriter {
    static func write(_ node: JSONNode, into out: inout String, indent: Int, insideArray: Bool) {
        switch node {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .number(text): out += text
        case let .string(text): writeString(text, into: &out)
        case let .array(elements):
            if elements.isEmpty { out += "[]"; return }
            if !elements.contains(where: \.isContainer) {
                out += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { out += ", " }
                    write(element, into: &out, indent: indent, insideArray: true)
                }
                out += "]"
                return
            }
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += String(repeating: " ", count: indent + 2)
                write(element, into: &out, indent: indent + 2, insideArray: true)
                out += index == elements.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "]"
        case let .object(members):
            if members.isEmpty { out += "{}"; return }
            if insideArray, !members.contains(where: { $0.1.isContainer }) {
                out += "{"
                for (index, member) in members.enumerated() {
                    if index > 0 { out += ", " }
                    writeString(member.0, into: &out)
                    out += ": "
                    write(member.1, into: &out, indent: indent, insideArray: true)
                }
                out += "}"
                return
            }
            out += "{\n"
            for (index, member) in members.enumerated() {
                out += String(repeating: " ", count: indent + 2)
                writeString(member.0, into: &out)
                out += ": "
                write(member.1, into: &out, indent: indent + 2, insideArray: false)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += String(repeating: " ", count: indent) + "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped, the rest verbatim UTF-8.
    static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Holds a node while containers are filled.
final class JSONNodeBox {
    var node: JSONNode?
    var members: [(String, JSONNodeBox)]?
    var elements: [JSONNodeBox]?

    init(_ node: JSONNode? = nil) { self.node = node }

    var resolved: JSONNode {
        if let members { return .object(members.map { ($0.0, $0.1.resolved) }) }
        if let elements { return .array(elements.map(\.resolved)) }
        return node ?? .null
    }

    func set(_ key: String, _ box: JSONNodeBox) {
        if members == nil { members = [] }
        if let index = members!.firstIndex(where: { $0.0 == key }) {
            members![index].1 = box
        } else {
            members!.append((key, box))
        }
    }
}

/// The `Encoder` that builds ``JSONNode``s.
final class JSONNodeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let box = JSONNodeBox()

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    static func node<T: Encodable>(for value: T, codingPath: [any CodingKey]) throws -> JSONNode {
        try boxed(value, codingPath: codingPath).resolved
    }

    static func boxed<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> JSONNodeBox {
        if let scalar = try scalarNode(value, codingPath: codingPath) { return JSONNodeBox(scalar) }
        let encoder = JSONNodeEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        return encoder.box
    }

    /// Plain values rendered directly (so a `Double` is never encoded through its own `encode(to:)`).
    static func scalarNode(_ value: Any, codingPath: [any CodingKey]) throws -> JSONNode? {
        switch value {
        case let value as String: return .string(value)
        case let value as Bool: return .bool(value)
        case let value as Double: return try number(value, codingPath: codingPath)
        case let value as Float: return try number(Double(value), codingPath: codingPath)
        case let value as Int: return .number(String(value))
        case let value as Int64: return .number(String(value))
        case let value as Int32: return .number(String(value))
        case let value as UInt: return .number(String(value))
        case let value as UInt64: return .number(String(value))
        default: return nil
        }
    }

    static func number(_ value: Double, codingPath: [any CodingKey]) throws -> JSONNode {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) cannot be written as JSON"))
        }
        return .number(value == 0 ? "0.0" : value.description)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.members == nil { box.members = [] }
        return KeyedEncodingContainer(JSONKeyedContainer<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if box.elements == nil { box.elements = [] }
        return JSONUnkeyedContainer(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleValueContainer(box: box, codingPath: codingPath)
    }
}

/// A coding key for array positions and super encoders.
struct JSONIndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

struct JSONKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: JSONNodeBox
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { box.set(key.stringValue, JSONNodeBox(.null)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        box.set(key.stringValue, try JSONNodeEncoder.boxed(value, codingPath: codingPath + [key]))
    }

    // Plain values without dynamic casts (the synthesized Codable code calls these).
    mutating func encode(_ value: String, forKey key: Key) throws { box.set(key.stringValue, JSONNodeBox(.string(value))) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { box.set(key.stringValue, JSONNodeBox(.bool(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        box.set(key.stringValue, JSONNodeBox(.number(String(value))))
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        box.set(key.stringValue, JSONNodeBox(.number(String(value))))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        box.set(key.stringValue, JSONNodeBox(try JSONNodeEncoder.number(value, codingPath: codingPath + [key])))
    }

    // Nil optionals are written as `null` (the default implementations leave the key out).
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = JSONNodeBox()
        child.members = []
        box.set(key.stringValue, child)
        return KeyedEncodingContainer(JSONKeyedContainer<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = JSONNodeBox()
        child.elements = []
        box.set(key.stringValue, child)
        return JSONUnkeyedContainer(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let encoder = JSONNodeEncoder(codingPath: codingPath + [key])
        box.set(key.stringValue, encoder.box)
        return encoder
    }
}

struct JSONUnkeyedContainer: UnkeyedEncodingContainer {
    let box: JSONNodeBox
    let codingPath: [any CodingKey]
    var count: Int { box.elements?.count ?? 0 }

    mutating func encodeNil() throws { box.elements!.append(JSONNodeBox(.null)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = JSONIndexKey(intValue: count)
        box.elements!.append(try JSONNodeEncoder.boxed(value, codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = JSONNodeBox()
        child.members = []
        box.elements!.append(child)
        return KeyedEncodingContainer(JSONKeyedContainer<NestedKey>(box: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = JSONNodeBox()
        child.elements = []
        box.elements!.append(child)
        return JSONUnkeyedContainer(box: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONNodeEncoder(codingPath: codingPath)
        box.elements!.append(encoder.box)
        return encoder
    }
}

struct JSONSingleValueContainer: SingleValueEncodingContainer {
    let box: JSONNodeBox
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.node = .null }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let child = try JSONNodeEncoder.boxed(value, codingPath: codingPath)
        box.node = child.node
        box.members = child.members
        box.elements = child.elements
    }
}
