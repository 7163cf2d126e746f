import FootstepCore

extension DaemonConfiguration {
    /// The effective configuration as TOML: what `footstepd --check-config`,
    /// `footstepctl config show` and `GET /v1/config` print. Parsing it gives
    /// this configuration back.
    public var renderedTOML: String { Self.render(self, documented: false) }

    /// The shipped `config/footstepd.toml`: every setting with its default
    /// and what it means (`footstepd --print-default-config`).
    public static var documentedTOML: String { render(DaemonConfiguration(), documented: true) }

    /// The configuration as data, by section and key, with the file's names:
    /// what `GET /v1/config` sends. Durations are seconds; sizes are in the
    /// key's unit (`max_audio_gb`, `min_free_mb`); an unset optional key is
    /// ``ConfigurationValue/none``.
    public var values: [String: [String: ConfigurationValue]] {
        var sections: [String: [String: ConfigurationValue]] = [:]
        for setting in Self.settings {
            sections[setting.section, default: [:]].merge(setting.values(self)) { _, new in new }
        }
        return sections
    }

    /// Writes `configuration` section by section, in the order of ``settings``;
    /// `documented` adds the file's header and each setting's help and examples.
    private static func render(_ configuration: DaemonConfiguration, documented: Bool) -> String {
        var sections: [(name: String, settings: [ConfigurationSetting])] = []
        for setting in settings {
            if sections.last?.name == setting.section {
                sections[sections.count - 1].settings.append(setting)
            } else {
                sections.append((setting.section, [setting]))
            }
        }
        var blocks: [[String]] = []
        if documented { blocks.append(fileHeader.map(comment)) }
        for (name, settings) in sections {
            var lines: [String] = []
            for setting in settings {
                if documented { lines += setting.help.map(comment) }
                lines += documented ? setting.example ?? setting.render(configuration) : setting.render(configuration)
            }
            // A section of tables only ([[equalizer.band]]) has no header of its own.
            let tablesOnly = settings.allSatisfy { $0.key.isEmpty }
            if tablesOnly {
                if !lines.isEmpty { blocks.append(lines) }
            } else {
                blocks.append(["[\(name)]"] + lines)
            }
        }
        return blocks.map { $0.joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }

    private static func comment(_ line: String) -> String { line.isEmpty ? "#" : "# \(line)" }
}
