import FootstepCore

/// `GET /v1/config`: the configuration in force (file values with command-line
/// overrides applied).
///
/// `settings` holds every key of the file by section, with the file's names
/// (`settings["detection"]["min_interval"]`); it is built from the daemon's one
/// declaration of its settings, so a new key appears here without a change to
/// this type. The configuration has no secrets today; anything secret added
/// later must be left out of that declaration's values.
public struct ConfigurationResponse: Codable, Sendable, Equatable {
    /// The file it was read from; nil for built-in defaults.
    public var path: String?
    /// Section → key → value.
    public var settings: [String: [String: ConfigurationValue]]
    /// The whole effective configuration as TOML (what `footstepd --check-config` prints).
    public var toml: String

    public init(path: String?, settings: [String: [String: ConfigurationValue]], toml: String) {
        self.path = path
        self.settings = settings
        self.toml = toml
    }

    /// The value of `section.key`, or nil when there is no such key.
    public subscript(section: String, key: String) -> ConfigurationValue? { settings[section]?[key] }
}
