import FootstepMQTT
import Foundation
import Testing

/// The discovery configs against Home Assistant's MQTT discovery documentation: the keys each component requires,
/// with their types, one device, and availability on footstepd's topic.
@Suite("Home Assistant discovery")
struct HomeAssistantDiscoveryTests {
    static let topics = MQTTTopics(prefix: "footstepd/flat-3")

    static func discovery(commands: Bool) -> HomeAssistantDiscovery {
        HomeAssistantDiscovery(topics: topics, node: "flat-3.lan", name: "footstepd flat-3", version: "0.8.0", commands: commands)
    }

    /// The configs as Home Assistant reads them: JSON objects.
    static func objects(commands: Bool) throws -> [(topic: String, retain: Bool, object: [String: Any])] {
        try discovery(commands: commands).messages.map { message in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
            return (message.topic, message.retain, object)
        }
    }

    @Test func everyConfigHasTheKeysItsComponentRequires() throws {
        let configs = try Self.objects(commands: true)
        #expect(configs.count == 8)
        var uniqueIds = Set<String>()
        for (topic, retain, object) in configs {
            let parts = topic.split(separator: "/").map(String.init)
            // homeassistant/<component>/<node_id>/<object_id>/config, ids of [a-zA-Z0-9_-].
            #expect(parts.count == 5 && parts[0] == "homeassistant" && parts[4] == "config", "\(topic)")
            #expect(["sensor", "binary_sensor", "button"].contains(parts[1]))
            #expect(parts[2] == "flat_3_lan")
            #expect(parts[2...3].allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } })
            #expect(retain)
            let required = parts[1] == "button" ? "command_topic" : "state_topic"
            #expect(object[required] is String, "\(topic) lacks \(required)")
            #expect(object["name"] is String)
            let uniqueId = try #require(object["unique_id"] as? String)
            #expect(uniqueIds.insert(uniqueId).inserted, "unique_id \(uniqueId) repeated")
            #expect(object["availability_topic"] as? String == "footstepd/flat-3/availability")
            #expect(object["payload_available"] as? String == "online")
            #expect(object["payload_not_available"] as? String == "offline")
            let device = try #require(object["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["footstepd_flat_3_lan"])
            #expect(device["sw_version"] as? String == "0.8.0")
            if object["device_class"] as? String == "sound_pressure" {
                #expect(object["unit_of_measurement"] as? String == "dBA")
                #expect(object["state_class"] as? String == "measurement")
            }
        }
        let problem = try #require(configs.first { $0.topic.contains("/microphone_problem/") })
        #expect(problem.object["device_class"] as? String == "problem")
        let rule = try #require(configs.first { $0.topic.contains("/last_rule_exceeded/") })
        #expect(rule.object["state_topic"] as? String == "footstepd/flat-3/exceedance")
        #expect(rule.object["json_attributes_topic"] as? String == "footstepd/flat-3/exceedance")
        #expect(rule.object["value_template"] as? String == "{{ value_json.rule }}")
        let button = try #require(configs.first { $0.topic.hasPrefix("homeassistant/button/") })
        #expect(button.object["command_topic"] as? String == "footstepd/flat-3/command/mark")
    }

    @Test func theMarkButtonIsAnnouncedOnlyWhenCommandsAreRead() throws {
        #expect(try Self.objects(commands: false).count == 7)
        #expect(try Self.objects(commands: false).allSatisfy { !$0.topic.hasPrefix("homeassistant/button/") })
    }

    @Test func commandsAreReadFromTheirTopicsOnly() {
        let topics = Self.topics
        #expect(MQTTCommand(MQTTMessage(topic: topics.command("mark"), text: "  stomping again \n"), topics: topics)
            == .mark(text: "stomping again"))
        #expect(MQTTCommand(MQTTMessage(topic: topics.command("mark"), text: ""), topics: topics) == .mark(text: ""))
        #expect(MQTTCommand(MQTTMessage(topic: topics.command("pause"), text: ""), topics: topics) == .pause)
        #expect(MQTTCommand(MQTTMessage(topic: topics.command("resume"), text: "x"), topics: topics) == .resume)
        #expect(MQTTCommand(MQTTMessage(topic: topics.command("delete"), text: ""), topics: topics) == nil)
        #expect(MQTTCommand(MQTTMessage(topic: "footstepd/other/command/pause", text: ""), topics: topics) == nil)
        let long = String(repeating: "a", count: 20_000)
        #expect(MQTTCommand(MQTTMessage(topic: topics.command("mark"), text: long), topics: topics)
            == .mark(text: String(long.prefix(MQTTCommand.maximumText))))
    }
}
