/// footstepd's topic tree under its prefix (`footstepd/<hostname>` by default); `docs/mqtt.md` describes each.
public struct MQTTTopics: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String) {
        self.prefix = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
    }

    /// `online` or `offline` (retained; `offline` is also the last will).
    public var availability: String { "\(prefix)/availability" }
    /// ``SensorState`` (retained).
    public var state: String { "\(prefix)/state" }
    public var event: String { "\(prefix)/event" }
    public var levels: String { "\(prefix)/levels" }
    /// A noise rule exceeded (``MQTTPayloads/Exceedance``).
    public var exceedance: String { "\(prefix)/exceedance" }
    /// The topic of an outbox row's record: `<prefix>/event`, `…/revision`, `…/deletion`, `…/session`, `…/gap`,
    /// `…/levels`, `…/exceedance`.
    public func record(_ name: String) -> String { "\(prefix)/\(name)" }
    /// A command's topic: `<prefix>/command/mark`, `…/pause`, `…/resume`.
    public func command(_ name: String) -> String { "\(prefix)/command/\(name)" }
}
