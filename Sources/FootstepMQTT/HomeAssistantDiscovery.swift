import Foundation

/// Home Assistant's MQTT discovery configs for one footstepd (retained, under `homeassistant/`): the sensors
/// (levels, footsteps, the last event's type, the last noise rule exceeded),
/// binary sensors and (when commands are accepted) the "Mark now" button of one device, each unavailable when `<prefix>/availability` says `offline`.
///
/// The keys are those of Home Assistant's MQTT discovery documentation (abbreviations not used).
public struct HomeAssistantDiscovery: Sendable {
    public let topics: MQTTTopics
    /// The device's id in Home Assistant (letters, digits, `_`).
    public let node: String
    public let name: String
    public let version: String
    /// Whether footstepd reads commands (`accept_commands`): the "Mark now" button is announced only then.
    public let commands: Bool

    public init(topics: MQTTTopics, node: String, name: String, version: String, commands: Bool) {
        self.topics = topics
        self.node = Self.objectId(node)
        self.name = name
        self.version = version
        self.commands = commands
    }

    /// One entity's config.
    public struct Config: Sendable, Equatable {
        /// `sensor`, `binary_sensor` or `button`.
        public var component: String
        public var objectId: String
        public var fields: [String: DiscoveryValue]

        /// `homeassistant/<component>/<node>/<object>/config`.
        public func topic(node: String) -> String { "homeassistant/\(component)/\(node)/\(objectId)/config" }
    }

    /// The configs, in a fixed order.
    public var configs: [Config] {
        let all = [
            sensor("laeq", "LAeq last minute", state: topics.levels, template: "{{ value_json.laeq }}", sound: true),
            sensor("lafmax", "LAFmax last minute", state: topics.levels, template: "{{ value_json.lafmax }}", sound: true),
            sensor(
                "footsteps_last_hour", "Footsteps in the last hour", state: topics.state,
                template: "{{ value_json.footsteps_last_hour }}", sound: false,
                extra: ["state_class": .text("measurement"), "icon": .text("mdi:shoe-print")]),
            sensor(
                "last_event_type", "Last event type", state: topics.event, template: "{{ value_json.type }}",
                sound: false, extra: ["icon": .text("mdi:shoe-print")]),
            // The rule, with the whole exceedance (value, threshold, time, cause) as its attributes: an
            // automation can notify on each one.
            sensor(
                "last_rule_exceeded", "Last noise rule exceeded", state: topics.exceedance,
                template: "{{ value_json.rule }}", sound: false,
                extra: ["json_attributes_topic": .text(topics.exceedance), "icon": .text("mdi:bullhorn")]),
            entity(
                "binary_sensor", "recording", "Recording",
                ["state_topic": .text(topics.state),
                 "value_template": .text("{{ 'ON' if value_json.recording else 'OFF' }}"),
                 "device_class": .text("running")]),
            entity(
                "binary_sensor", "microphone_problem", "Microphone problem",
                ["state_topic": .text(topics.state),
                 "value_template": .text("{{ 'ON' if value_json.microphone_problem else 'OFF' }}"),
                 "device_class": .text("problem"), "entity_category": .text("diagnostic")]),
            entity(
                "button", "mark", "Mark now",
                ["command_topic": .text(topics.command("mark")), "payload_press": .text(""),
                 "icon": .text("mdi:bookmark-plus")]),
        ]
        return commands ? all : all.filter { $0.component != "button" }
    }

    /// The retained messages that announce every entity (QoS 1).
    public var messages: [MQTTMessage] {
        configs.map { config in
            MQTTMessage(topic: config.topic(node: node), payload: DiscoveryValue.object(config.fields).json, retain: true)
        }
    }

    private func sensor(
        _ id: String, _ title: String, state: String, template: String, sound: Bool,
        extra: [String: DiscoveryValue] = [:]
    ) -> Config {
        var fields: [String: DiscoveryValue] = ["state_topic": .text(state), "value_template": .text(template)]
        if sound {
            fields["device_class"] = .text("sound_pressure")
            fields["unit_of_measurement"] = .text("dBA")
            fields["state_class"] = .text("measurement")
        }
        return entity("sensor", id, title, fields.merging(extra) { $1 })
    }

    private func entity(_ component: String, _ id: String, _ title: String, _ fields: [String: DiscoveryValue]) -> Config {
        var all = fields
        all["name"] = .text(title)
        all["unique_id"] = .text("footstepd_\(node)_\(id)")
        all["object_id"] = .text("footstepd_\(node)_\(id)")
        all["availability_topic"] = .text(topics.availability)
        all["payload_available"] = .text("online")
        all["payload_not_available"] = .text("offline")
        all["device"] = .object([
            "identifiers": .list([.text("footstepd_\(node)")]),
            "name": .text(name),
            "manufacturer": .text("footstepd"),
            "model": .text("footstepd noise recorder"),
            "sw_version": .text(version),
        ])
        return Config(component: component, objectId: id, fields: all)
    }

    /// Letters, digits and `_` only, as Home Assistant's node and object ids must be.
    static func objectId(_ text: String) -> String {
        let mapped = text.unicodeScalars.map { scalar -> Character in
            (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) && scalar.isASCII ? Character(scalar) : "_"
        }
        return String(mapped).lowercased()
    }
}

/// A JSON value of a discovery config.
public enum DiscoveryValue: Sendable, Equatable {
    case text(String)
    case list([DiscoveryValue])
    case object([String: DiscoveryValue])

    /// Compact JSON with sorted keys.
    public var json: [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: foundation, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }

    var foundation: Any {
        switch self {
        case let .text(text): return text
        case let .list(values): return values.map(\.foundation)
        case let .object(fields): return fields.mapValues(\.foundation)
        }
    }
}
