/// The body of every error response: `{"error":{"code":"…","message":"…"}}`.
public struct ErrorResponse: Codable, Sendable, Equatable {
    /// The error itself.
    public struct Detail: Codable, Sendable, Equatable {
        /// A stable, machine-readable code (`not_found`, `forbidden`, `bad_request` …).
        public var code: String
        /// What went wrong and what to do, for a person.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: String, message: String) {
        self.error = Detail(code: code, message: message)
    }
}
