/// journald MESSAGE_IDs of lifecycle entries (`journalctl MESSAGE_ID=…`).
enum MessageID {
    static let sessionStarted = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f801"
    static let sessionEnded = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f802"
    static let deviceLost = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f803"
    static let deviceRestored = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f804"
    static let fileRepaired = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f805"
    static let stopped = "5c1b0e3f6a8d4f0e9b7e2d61a4c3f806"
}
