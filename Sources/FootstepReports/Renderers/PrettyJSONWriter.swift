import Foundation

/// Writes JSON as a stream in exactly the layout of `JSONEncoder` with
/// `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]` (two-space indent,
/// `"key" : value`, integral doubles without `.0`, nil optionals left out), without
/// building the value tree `JSONEncoder` builds first: for the 100,000 events of a
/// busy month that tree is most of the time and memory of the JSON report.
///
/// The caller writes keys in sorted order (byte order, as `.sortedKeys` does). Text
/// is handed to `sink` in chunks of about 64 KiB and once more by ``finish()``.
///
/// - Note: Not thread-safe; one writer per document.
final class PrettyJSONWriter {
    private var buffer = ""
    private let sink: (String) -> Void
    /// Values written so far in each open container.
    private var counts: [Int] = []

    init(sink: @escaping (String) -> Void) {
        self.sink = sink
        buffer.reserveCapacity(1 << 16 + 1024)
    }

    /// Hands the rest of the text to the sink.
    func finish() {
        if !buffer.isEmpty { sink(buffer) }
        buffer = ""
    }

    // MARK: Containers

    /// `{ … }` with the members `body` writes through ``key(_:)`` and the value methods.
    func object(_ body: () -> Void) { container("{", "}", body) }

    /// `[ … ]` with the elements `body` writes.
    func array(_ body: () -> Void) { container("[", "]", body) }

    /// An array of `elements`, each written by `write`.
    func array<Element>(_ elements: some Sequence<Element>, _ write: (Element) -> Void) {
        array { for element in elements { write(element) } }
    }

    /// An object of `dictionary`'s entries in sorted key order.
    func object(_ dictionary: [String: Int]) {
        object { for key in dictionary.keys.sorted(by: Self.byteOrder) { self.key(key).int(dictionary[key]!) } }
    }

    private func container(_ open: String, _ close: String, _ body: () -> Void) {
        beginValue()
        buffer += open
        counts.append(0)
        body()
        // JSONEncoder writes an empty container as an open bracket, a blank line and the close.
        buffer += counts.removeLast() == 0 ? "\n\n" : "\n"
        indent()
        buffer += close
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    // MARK: Members and values

    /// Starts the member `name` of the open object; write its value next.
    @discardableResult
    func key(_ name: String) -> PrettyJSONWriter {
        separate()
        appendString(name)
        buffer += " : "
        pendingKey = true
        return self
    }

    func string(_ value: String) {
        beginValue()
        appendString(value)
    }

    func int<Integer: BinaryInteger>(_ value: Integer) {
        beginValue()
        buffer += String(value)
    }

    func bool(_ value: Bool) {
        beginValue()
        buffer += value ? "true" : "false"
    }

    /// A finite double as `JSONEncoder` writes it (its shortest round-trip form, `45` not `45.0`).
    func double(_ value: Double) {
        beginValue()
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        buffer += text
    }

    /// A date as ISO 8601 UTC with milliseconds.
    func date(_ value: Date) { string(ReportDates.utc(value)) }

    // MARK: Optional members (left out when nil, like `encodeIfPresent`)

    func member(_ name: String, _ value: String?) { if let value { key(name).string(value) } }
    func member(_ name: String, _ value: Double?) { if let value { key(name).double(value) } }
    func member(_ name: String, _ value: Date?) { if let value { key(name).date(value) } }
    func member<Integer: BinaryInteger>(_ name: String, _ value: Integer?) { if let value { key(name).int(value) } }

    // MARK: Layout

    private var pendingKey = false

    /// Before a value: nothing after a key, else the separator and indent of an array element.
    private func beginValue() {
        if pendingKey {
            pendingKey = false
        } else if !counts.isEmpty {
            separate()
        }
    }

    private func separate() {
        if counts[counts.count - 1] > 0 { buffer += "," }
        counts[counts.count - 1] += 1
        buffer += "\n"
        indent()
    }

    private func indent() {
        for _ in 0..<counts.count { buffer += "  " }
    }

    private func flush() {
        sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// A JSON string: quotes, backslashes and control characters escaped, `/` and non-ASCII as is.
    private func appendString(_ text: String) {
        buffer += "\""
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            buffer += text
            buffer += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": buffer += "\\\""
            case "\\": buffer += "\\\\"
            case "\n": buffer += "\\n"
            case "\r": buffer += "\\r"
            case "\t": buffer += "\\t"
            case "\u{8}": buffer += "\\b"
            case "\u{c}": buffer += "\\f"
            case _ where scalar.value < 0x20:
                buffer += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: buffer.unicodeScalars.append(scalar)
            }
        }
        buffer += "\""
    }

    /// The order of `.sortedKeys`: by UTF-8 bytes.
    static func byteOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
}
