import Foundation

/// A command received on `<prefix>/command/<name>` (only with `[mqtt] accept_commands = true`: the broker's
/// access control then decides who may send one).
public enum MQTTCommand: Sendable, Equatable {
    /// A diary mark now, with the payload as its text (may be empty).
    case mark(text: String)
    case pause
    case resume

    /// The longest mark text kept (the control socket's limit for diary text).
    public static let maximumText = 10_000

    /// The command of a message on `topics.command(…)`; nil for another topic or an unknown name.
    public init?(_ message: MQTTMessage, topics: MQTTTopics) {
        let prefix = topics.command("")
        guard message.topic.hasPrefix(prefix) else { return nil }
        switch message.topic.dropFirst(prefix.count) {
        case "mark":
            let text = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
            self = .mark(text: String(text.prefix(Self.maximumText)))
        case "pause": self = .pause
        case "resume": self = .resume
        default: return nil
        }
    }

    /// `mark`, `pause` or `resume`.
    public var name: String {
        switch self {
        case .mark: return "mark"
        case .pause: return "pause"
        case .resume: return "resume"
        }
    }
}
