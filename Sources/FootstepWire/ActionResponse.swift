/// The answer to `POST /v1/recording/{start,pause,resume,stop}` and `POST /v1/config/reload`.
public struct ActionResponse: Codable, Sendable, Equatable {
    /// `start`, `pause`, `resume`, `stop` or `reload`.
    public var action: String
    /// The daemon's state after the action took effect (see ``StatusResponse/state``).
    public var state: String
    /// The open session afterwards, if any.
    public var sessionId: Int64?
    /// A sentence for people ("session 4 stopped").
    public var message: String

    public init(action: String, state: String, sessionId: Int64?, message: String) {
        self.action = action
        self.state = state
        self.sessionId = sessionId
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case action, state, message
        case sessionId = "session_id"
    }
}
