import FootstepCore

/// One key of the configuration file, declared once: its section, what it
/// means, its range or allowed values, and how it is read into and written
/// from a ``DaemonConfiguration`` (as TOML and as data). Its default is the struct's own
/// (`DaemonConfiguration()`).
///
/// ``DaemonConfiguration/settings`` lists every key. The parser
/// (``DaemonConfiguration/parse(_:file:)``), the effective configuration that
/// `--check-config`, `config show` and the API print (``DaemonConfiguration/renderedTOML``),
/// the shipped file (``DaemonConfiguration/documentedTOML``, compared with
/// `config/footstepd.toml` by a test) and the values the API sends
/// (``DaemonConfiguration/values``) all come from that list.
public struct ConfigurationSetting {
    /// The TOML table (`capture`, `detection`, …).
    public let section: String
    /// The key within it; empty for a setting that is a whole table (the equalizer's bands).
    public let key: String
    /// What it means, for the shipped file: comment lines without their `# `.
    public let help: [String]
    /// Reads the key from its section into the configuration, checking it.
    let read: (inout TOMLSection, inout DaemonConfiguration) throws(ConfigurationError) -> Void
    /// The key's TOML lines for a configuration (`key = value`); none when it is left out.
    let render: (DaemonConfiguration) -> [String]
    /// The key's value as data (`GET /v1/config`), by key within the section: one
    /// entry, or a setting's several keys or tables.
    let values: (DaemonConfiguration) -> [String: ConfigurationValue]
    /// The lines the shipped file shows instead of ``render`` (a commented example).
    let example: [String]?

    /// `section.key`.
    public var name: String { key.isEmpty ? section : "\(section).\(key)" }
}

extension ConfigurationSetting {
    typealias Path<Value> = WritableKeyPath<DaemonConfiguration, Value>

    static func int(
        _ section: String, _ key: String, _ path: Path<Int>, range: ClosedRange<Int>, help: [String]
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                configuration[keyPath: path] = try table.int(key, default: configuration[keyPath: path], range: range)
            },
            render: { ["\(key) = \($0[keyPath: path])"] },
            values: { [key: .integer(Int64($0[keyPath: path]))] }, example: nil)
    }

    /// A number.
    static func double(
        _ section: String, _ key: String, _ path: Path<Double>, range: ClosedRange<Double>, help: [String]
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                configuration[keyPath: path] = try table.double(key, default: configuration[keyPath: path], range: range)
            },
            render: { ["\(key) = \(TOMLText.number($0[keyPath: path]))"] },
            values: { [key: .number($0[keyPath: path])] }, example: nil)
    }

    /// A byte count written in a larger unit (`unit` bytes: 1e9 for "gb", 1e6 for "mb").
    static func bytes(
        _ section: String, _ key: String, _ path: Path<Int64>, unit: Double, range: ClosedRange<Double>, help: [String]
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                let value = try table.double(key, default: Double(configuration[keyPath: path]) / unit, range: range)
                configuration[keyPath: path] = Int64((value * unit).rounded())
            },
            render: { ["\(key) = \(TOMLText.number(Double($0[keyPath: path]) / unit))"] },
            values: { [key: .number(Double($0[keyPath: path]) / unit)] }, example: nil)
    }

    /// Seconds, written as a number or as text with a unit ("90s", "30m", "4h").
    static func duration(
        _ section: String, _ key: String, _ path: Path<Double>, range: ClosedRange<Double>, help: [String]
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                configuration[keyPath: path] = try table.duration(key, default: configuration[keyPath: path], range: range)
            },
            render: { ["\(key) = \(TOMLText.quoted(TOMLText.duration($0[keyPath: path])))"] },
            values: { [key: .number($0[keyPath: path])] }, example: nil)
    }

    static func bool(_ section: String, _ key: String, _ path: Path<Bool>, help: [String]) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                configuration[keyPath: path] = try table.bool(key, default: configuration[keyPath: path])
            },
            render: { ["\(key) = \($0[keyPath: path])"] },
            values: { [key: .flag($0[keyPath: path])] }, example: nil)
    }

    /// Text; `check` returns why a value is not acceptable (nil when it is).
    static func string(
        _ section: String, _ key: String, _ path: Path<String>, help: [String], check: ((String) -> String?)? = nil
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                let value = try table.string(key, default: configuration[keyPath: path])
                if let problem = check?(value) { throw table.error(key, problem) }
                configuration[keyPath: path] = value
            },
            render: { ["\(key) = \(TOMLText.quoted($0[keyPath: path]))"] },
            values: { [key: .text($0[keyPath: path])] }, example: nil)
    }

    /// Text that may be absent: empty means nil.
    static func optionalString(
        _ section: String, _ key: String, _ path: Path<String?>, help: [String], check: ((String) -> String?)? = nil
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                let value = try table.optionalString(key)
                if let value, let problem = check?(value) { throw table.error(key, problem) }
                configuration[keyPath: path] = value
            },
            render: { ["\(key) = \(TOMLText.quoted($0[keyPath: path] ?? ""))"] },
            values: { [key: $0[keyPath: path].map(ConfigurationValue.text) ?? ConfigurationValue.none] }, example: nil)
    }

    /// One of the raw values of `Value`.
    static func choice<Value: RawRepresentable & CaseIterable>(
        _ section: String, _ key: String, _ path: Path<Value>, help: [String]
    ) -> ConfigurationSetting where Value.RawValue == String {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                let raw = try table.string(
                    key, default: configuration[keyPath: path].rawValue, allowed: Value.allCases.map(\.rawValue))
                configuration[keyPath: path] = Value(rawValue: raw)!
            },
            render: { ["\(key) = \(TOMLText.quoted($0[keyPath: path].rawValue))"] },
            values: { [key: .text($0[keyPath: path].rawValue)] }, example: nil)
    }

    /// A daily window like "23:00-07:00".
    static func dailyWindow(_ section: String, _ key: String, _ path: Path<DailyWindow>, help: [String]) -> ConfigurationSetting {
        ConfigurationSetting(
            section: section, key: key, help: help,
            read: { (table, configuration) throws(ConfigurationError) in
                let text = try table.string(key, default: configuration[keyPath: path].description)
                guard let window = DailyWindow(parsing: text) else {
                    throw table.error(key, "'\(text)' is not a time window like \"23:00-07:00\"")
                }
                configuration[keyPath: path] = window
            },
            render: { ["\(key) = \(TOMLText.quoted($0[keyPath: path].description))"] },
            values: { [key: .text($0[keyPath: path].description)] }, example: nil)
    }
}

/// How values are written in TOML.
enum TOMLText {
    static func quoted(_ text: String) -> String {
        "\"\(text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\""
    }

    /// A TOML float ("60.0", "0.13"), as Swift prints it.
    static func number(_ value: Double) -> String { String(value) }

    /// Seconds in the largest unit that divides them: "4h", "30m", "90s".
    static func duration(_ seconds: Double) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int64(seconds / 3600))h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int64(seconds / 60))m" }
        return seconds == seconds.rounded() ? "\(Int64(seconds))s" : "\(seconds)s"
    }
}
