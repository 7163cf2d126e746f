import TOMLKit

/// Typed, strict access to one table of a TOML document: every read names
/// its key in errors, values are range-checked, and `finish()` rejects keys
/// nobody asked for (a typo is an error, never a silently ignored setting).
struct TOMLSection {
    let file: String
    let name: String
    private let table: TOMLTable?
    private var used: Set<String> = []

    init(file: String, name: String, table: TOMLTable?) {
        self.file = file
        self.name = name
        self.table = table
    }

    func key(_ key: String) -> String { name.isEmpty ? key : "\(name).\(key)" }

    func error(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, key: self.key(key), message: message)
    }

    private mutating func value(_ key: String) -> (any TOMLValueConvertible)? {
        used.insert(key)
        return table?[key]
    }

    mutating func string(_ key: String, default fallback: String, allowed: [String]? = nil) throws(ConfigurationError) -> String {
        guard let raw = value(key) else { return fallback }
        guard let text = raw.string else { throw error(key, "expected a string, found \(raw.type)") }
        if let allowed, !allowed.contains(text) {
            throw error(key, "'\(text)' is not one of \(allowed.map { "'\($0)'" }.joined(separator: ", "))")
        }
        return text
    }

    mutating func optionalString(_ key: String) throws(ConfigurationError) -> String? {
        guard let raw = value(key) else { return nil }
        guard let text = raw.string else { throw error(key, "expected a string, found \(raw.type)") }
        return text.isEmpty ? nil : text
    }

    mutating func int(_ key: String, default fallback: Int, range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let raw = value(key) else { return fallback }
        guard let number = raw.int else { throw error(key, "expected an integer, found \(raw.type)") }
        guard range.contains(number) else { throw error(key, "\(number) is out of range (\(range.lowerBound)–\(range.upperBound))") }
        return number
    }

    mutating func double(_ key: String, default fallback: Double, range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard let raw = value(key) else { return fallback }
        guard let number = raw.double ?? raw.int.map(Double.init) else {
            throw error(key, "expected a number, found \(raw.type)")
        }
        guard range.contains(number) else { throw error(key, "\(number) is out of range (\(range.lowerBound)–\(range.upperBound))") }
        return number
    }

    mutating func bool(_ key: String, default fallback: Bool) throws(ConfigurationError) -> Bool {
        guard let raw = value(key) else { return fallback }
        guard let flag = raw.bool else { throw error(key, "expected true or false, found \(raw.type)") }
        return flag
    }

    mutating func stringArray(_ key: String, default fallback: [String]) throws(ConfigurationError) -> [String] {
        guard let raw = value(key) else { return fallback }
        guard let array = raw.array else { throw error(key, "expected an array of strings, found \(raw.type)") }
        var strings: [String] = []
        for element in array {
            guard let text = element.string else { throw error(key, "expected an array of strings, found an element of type \(element.type)") }
            strings.append(text)
        }
        return strings
    }

    mutating func tables(_ key: String) throws(ConfigurationError) -> [TOMLTable] {
        guard let raw = value(key) else { return [] }
        guard let array = raw.array else { throw error(key, "expected an array of tables ([[\(self.key(key))]]), found \(raw.type)") }
        var tables: [TOMLTable] = []
        for element in array {
            guard let table = element.table else { throw error(key, "expected tables, found an element of type \(element.type)") }
            tables.append(table)
        }
        return tables
    }

    /// Throws for the first key in the table that was never read.
    func finish() throws(ConfigurationError) {
        guard let table else { return }
        for key in table.keys.sorted() where !used.contains(key) {
            throw error(key, "unknown setting (check the spelling; see config/footstepd.toml for every setting)")
        }
    }
}
