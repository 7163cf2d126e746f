import FootstepCore
import FootstepMQTT
import Testing

@Suite("Broker URLs")
struct MQTTBrokerURLTests {
    @Test func schemesGiveTheirPortsAndTLS() throws {
        #expect(MQTTBroker(url: "mqtt://broker.lan") == MQTTBroker(host: "broker.lan", port: 1883, tls: false))
        #expect(MQTTBroker(url: "mqtts://broker.lan") == MQTTBroker(host: "broker.lan", port: 8883, tls: true))
        #expect(MQTTBroker(url: "mqtt://10.0.0.2:1884/") == MQTTBroker(host: "10.0.0.2", port: 1884, tls: false))
        #expect(MQTTBroker(url: "mqtts://[::1]:8884") == MQTTBroker(host: "::1", port: 8884, tls: true))
        #expect(MQTTBroker(url: "mqtts://[::1]:8884")?.description == "mqtts://[::1]:8884")
    }

    @Test(arguments: ["http://broker", "broker:1883", "mqtt://", "mqtt://host:0", "mqtt://host:port", "mqtt://u:p@host",
                      "mqtt://[::1", "mqtt://host/path"])
    func otherTextIsRefusedWithTheFormItShouldHave(_ url: String) {
        #expect(MQTTBroker(url: url) == nil)
        #expect(MQTTError.invalidURL(url).description.contains("mqtt://host[:port]"))
    }
}
